import { HttpError } from './http-errors.ts';
import type { FlagValue, KeywordAttributesInput } from './input-schemas.ts';

/**
 * ActiveModel::Type::Boolean's FALSE_VALUES (Rails 7.1 to 8.0, Mastodon 4.3 and 4.4), compared as Ruby's
 * Set#include? compares: exactly, so `False`, `Off` and ` false` are none of them. A JSON number reaches
 * here as a number: only 0 is false (JSON.parse reads 0.0 as 0 too, where Ruby keeps a Float that is true).
 */
const FALSE_VALUES = new Set<string | number | boolean>([false, 0, '0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/** Rails' boolean cast: the empty string is "not given" (nil), a false value is false, anything else true. */
export function railsBoolean(value: FlagValue | undefined): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return !FALSE_VALUES.has(value);
}

export const text = (value: string | number | null | undefined): string | undefined => (value === undefined || value === null ? undefined : String(value));

/**
 * Rails' strong parameters take `context` only as a list (`context: []`), so `context=home` or
 * `"context":"home"` is as good as no context: blank, which Mastodon refuses with its two context
 * messages. Only a parameter that was not sent at all leaves the context unchanged.
 */
export function contextList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? (value as string[]) : [];
}

/** Rails accepts nested attributes as a list or as a hash keyed by index. */
export function attributeList(value: KeywordAttributesInput[] | Record<string, KeywordAttributesInput> | undefined): KeywordAttributesInput[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  return Object.keys(value)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))
    .map((key) => value[key]!);
}

/** Rails' `reject_if: :all_blank`: a row whose values are all blank (JSON false counts) is ignored. */
export function isAllBlank(row: KeywordAttributesInput): boolean {
  return Object.entries(row)
    .filter(([key]) => key !== '_destroy')
    .every(([, v]) => v === undefined || v === null || v === false || (typeof v === 'string' && v.trim() === ''));
}

const MAX_DATE_MS = 8.64e15;

/**
 * `expires_in` seconds from now. Omitted: no change (undefined). Empty or null: never expires. A
 * non-numeric value is refused rather than read as 0 (which would expire the filter at once).
 */
export function expiresAtFrom(value: string | number | null | undefined, nowMs: number): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  const seconds = typeof value === 'number' ? value : Number(value.trim());
  const at = nowMs + Math.trunc(seconds) * 1000;
  if (!Number.isFinite(seconds) || Math.abs(at) > MAX_DATE_MS) {
    throw new HttpError(422, 'Validation failed: Expires in is not a number');
  }
  return new Date(at).toISOString();
}
