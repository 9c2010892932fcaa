import type { KeywordChange, KeywordDraft, SettingsInput } from '../commands/filter/commands.ts';
import { newId } from '../shared/ids.ts';
import type { FlagValue } from './input-schemas.ts';
import { contextList, expiresAtFrom, railsBoolean, text } from './input-values.ts';

/** Filter-level parameters as v1 and v2 name them, before casting. */
export interface SettingsParams {
  readonly title?: string | number;
  readonly context?: unknown;
  readonly action?: string;
  readonly expiresIn?: string | number | null;
}

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

/** Only the settings that were sent: an update changes those and nothing else. */
export function partialSettings(params: SettingsParams, nowMs: number): Partial<SettingsInput> {
  const settings: Mutable<SettingsInput> = {};
  if (params.title !== undefined) settings.title = String(params.title);
  const context = contextList(params.context);
  if (context !== undefined) settings.context = context;
  if (params.action !== undefined) settings.action = params.action;
  const expiresAt = expiresAtFrom(params.expiresIn, nowMs);
  if (expiresAt !== undefined) settings.expiresAt = expiresAt;
  return settings;
}

/** A new filter's settings: Mastodon's defaults for whatever was not sent (the decider judges blanks). */
export function newFilterSettings(given: Partial<SettingsInput>): SettingsInput {
  return { title: given.title ?? '', context: given.context ?? [], action: given.action ?? 'warn', expiresAt: given.expiresAt ?? null };
}

/** A change to one keyword, naming only what was sent. */
export function keywordChange(id: string, keyword: string | number | null | undefined, wholeWord: FlagValue | undefined): KeywordChange {
  const flag = railsBoolean(wholeWord);
  return { id, ...(keyword !== undefined ? { keyword: text(keyword) ?? '' } : {}), ...(flag !== undefined ? { wholeWord: flag } : {}) };
}

/** A keyword to add: whole-word unless told otherwise, as Mastodon's column default. */
export function newKeyword(keyword: string | number | null | undefined, wholeWord: FlagValue | undefined): KeywordDraft {
  return { id: newId(), keyword: text(keyword) ?? '', wholeWord: railsBoolean(wholeWord) ?? true };
}
