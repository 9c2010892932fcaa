import type { ImportFilter } from '../commands/filter/commands.ts';
import type { ImportedRow } from '../events/filter-events.ts';
import { CONTEXT_ENTRIES_READ, type MastodonFilterRow, type MastodonFilterRows } from './mastodon-filter-rows.ts';

/** Mastodon's `enum :action, { warn: 0, hide: 1, blur: 2 }` (app/models/custom_filter.rb; blur since 4.4). */
const ACTIONS: Readonly<Record<number, string>> = { 0: 'warn', 1: 'hide', 2: 'blur' };

/** The Mastodon rows one imported filter's events stand for. */
export interface RowsOfFilter {
  readonly filter: ImportedRow;
  readonly keywords: readonly ImportedRow[];
  readonly statuses: readonly ImportedRow[];
}

export type PreparedImport = { readonly command: ImportFilter; readonly rows: RowsOfFilter } | { readonly reason: string };

/** A time as the API writes one (ISO-8601 in UTC with milliseconds, as Rails renders `expires_at`); null if JavaScript has none for it. */
function isoOf(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

class Unstorable extends Error {}

function timeOf(ms: number | null, what: string): string {
  const iso = isoOf(ms);
  if (iso === null) throw new Unstorable(`${what} is not a time the API can store`);
  return iso;
}

const rowOf = (table: ImportedRow['table'], row: { id: string; createdAtMs: number | null; updatedAtMs: number | null }): ImportedRow => ({
  table,
  id: row.id,
  createdAt: timeOf(row.createdAtMs, `${table} ${row.id} created_at`),
  updatedAt: timeOf(row.updatedAtMs, `${table} ${row.id} updated_at`),
});

/**
 * The import command for one of Mastodon's filters, or why it cannot be one before any rule is asked:
 * an account nobody can sign in to, an action value Mastodon has no name for, a time JavaScript cannot
 * hold. Everything else (titles, contexts, keywords, limits) the decider judges, as it judges a create.
 */
export async function importCommandOf(filter: MastodonFilterRow, source: MastodonFilterRows, run: { importedAt: string }): Promise<PreparedImport> {
  if (!filter.localUser) return { reason: `account ${filter.accountId} is not a local user (no users row), so no one could use this filter` };
  const action = ACTIONS[filter.action];
  if (action === undefined) return { reason: `action ${filter.action} is none of Mastodon's (0 warn, 1 hide, 2 blur)` };
  if (filter.contextEntries > CONTEXT_ENTRIES_READ) return { reason: `context has ${filter.contextEntries} entries (Mastodon has 5 contexts)` };
  try {
    const expiresAt = filter.expiresAtText === null ? null : timeOf(filter.expiresAtMs, `expires_at ${filter.expiresAtText}`);
    const keywordRows = await source.keywords(filter.id);
    const statusRows = await source.statuses(filter.id);
    const rows: RowsOfFilter = {
      filter: rowOf('custom_filters', filter),
      keywords: keywordRows.map((k) => rowOf('custom_filter_keywords', k)),
      statuses: statusRows.map((s) => rowOf('custom_filter_statuses', s)),
    };
    const lastKeywordSave = rows.keywords.reduce((last, k) => (k.updatedAt > last ? k.updatedAt : last), rows.filter.createdAt);
    const command: ImportFilter = {
      type: 'ImportFilter',
      data: {
        filterId: filter.id,
        accountId: filter.accountId,
        now: run.importedAt,
        settings: { title: filter.phrase, context: filter.context, action, expiresAt },
        keywords: keywordRows.map((k) => ({ id: k.id, keyword: k.keyword, wholeWord: k.wholeWord })),
        statuses: statusRows.map((s, i) => ({ id: s.id, statusId: s.statusId, filteredAt: rows.statuses[i]!.createdAt })),
        createdAt: rows.filter.createdAt,
        keywordsUpdatedAt: lastKeywordSave,
      },
    };
    return { command, rows };
  } catch (error) {
    if (error instanceof Unstorable) return { reason: error.message };
    throw error;
  }
}
