import { HttpError } from './http-errors.ts';

/**
 * What one request may send (docs/api.md "Limits"). Each is checked while parsing, before the work it would
 * cause, and answered with a JSON 400, so no request can make parsing slow or deep.
 */
export const PARAM_LIMITS = {
  /** Bracket levels below a name: `a[b][c]` (or JSON `{"a":{"b":{"c":1}}}`) has 2. Rack allows 100; the API needs 2. */
  depth: 32,
  /** Parameters in the query string, and again in the body (form pairs, multipart fields, JSON values): Rack's params_limit. */
  params: 4096,
  /** Items in one list (`context[]`, `keywords_attributes[]`, a JSON array). */
  listItems: 1000,
} as const;

/** Keys that name or reach an object's prototype: never kept, whatever their value. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isPrototypeKey = (key: string): boolean => PROTOTYPE_KEYS.has(key);

export const tooDeep = (): HttpError => new HttpError(400, `Parameters are nested deeper than ${PARAM_LIMITS.depth} levels`);
export const tooManyParams = (): HttpError => new HttpError(400, `More than ${PARAM_LIMITS.params} parameters`);
export const tooManyItems = (): HttpError => new HttpError(400, `More than ${PARAM_LIMITS.listItems} items in one list`);

/** Counts work done while parsing, so a test can show it grows with the input's size and no faster. */
export interface ParseMeter {
  step(count?: number): void;
}

export const unmetered: ParseMeter = { step: () => {} };
