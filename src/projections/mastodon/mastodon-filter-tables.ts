import type pg from 'pg';
import type { FilterContext } from '../../events/filter-events.ts';
import type { FilterView } from '../fold/filter-view.ts';
import type { ParkedEvent, ProjectionBatch, ProjectionTarget } from '../stores/read-store.ts';
import { actionOfRow, mastodonRowsOf, type MastodonFilterRows } from './mastodon-filter-rows.ts';
import { readAccountRows, type AccountRows } from './mastodon-account-rows.ts';
import { BOOKKEEPING, fromUtc, inTransaction, query, toUtc } from './mastodon-sql.ts';

interface FilterRow {
  id: string;
  account_id: string;
  revision: string;
  deleted: boolean;
  present: boolean;
  phrase: string | null;
  context: string[] | null;
  action: number | null;
  expires_at: string | null;
}

type Times = { readonly createdAt: string; readonly updatedAt: string };

/**
 * Mastodon's `custom_filters`, `custom_filter_keywords` and `custom_filter_statuses` as a projection
 * target: the projection runtime folds the log's events into v2 views as it does for the read models,
 * and each batch (whole commits, usually one) is written here in one PostgreSQL transaction with the
 * checkpoint, so Mastodon never reads part of a request and a batch applied twice changes nothing.
 */
export class MastodonFilterTables implements ProjectionTarget {
  private constructor(private readonly pool: pg.Pool) {}

  /** Creates this service's bookkeeping schema if absent: a role that may not is a start that fails. */
  static async open(pool: pg.Pool): Promise<MastodonFilterTables> {
    await query(pool, BOOKKEEPING);
    return new MastodonFilterTables(pool);
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    const rows = await query<{ position: string | null }>(this.pool, 'SELECT position::text FROM content_filters.checkpoints WHERE projection = $1', [
      projection,
    ]);
    const position = rows[0]?.position;
    return position === undefined || position === null ? null : BigInt(position);
  }

  /**
   * The views to fold onto, read back from Mastodon's rows and the revisions kept beside them. A filter
   * whose row Mastodon removed behind the service's back is not known: its next events are skipped
   * (the drift check names it) rather than written onto an empty filter.
   */
  async loadFilters(filterIds: readonly string[]): Promise<ReadonlyMap<string, FilterView>> {
    const ids = filterIds.filter((id) => /^\d{1,19}$/.test(id));
    const found = new Map<string, FilterView>();
    if (ids.length === 0) return found;
    const filters = await query<FilterRow>(
      this.pool,
      `SELECT r.filter_id::text AS id, r.account_id::text AS account_id, r.revision::text AS revision, r.deleted, f.id IS NOT NULL AS present,
              f.phrase, f.context, f.action, ${fromUtc('f.expires_at')} AS expires_at
         FROM content_filters.filter_revisions r LEFT JOIN custom_filters f ON f.id = r.filter_id
        WHERE r.filter_id = ANY($1::bigint[])`,
      [ids],
    );
    const live = filters.filter((f) => f.present && !f.deleted).map((f) => f.id);
    const children = live.length > 0 ? await readAccountRows(this.pool, 'custom_filter_id = ANY($1::bigint[])', [live]) : null;
    for (const row of filters) {
      if (row.deleted) found.set(row.id, tombstone(row));
      else if (row.present) found.set(row.id, viewOf(row, children!));
    }
    return found;
  }

  async applyBatch(batch: ProjectionBatch): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO content_filters.checkpoints (projection, position) VALUES ($1, NULL) ON CONFLICT DO NOTHING', [batch.projection]);
      const { rows } = await client.query<{ position: string | null }>(
        'SELECT position::text FROM content_filters.checkpoints WHERE projection = $1 FOR UPDATE',
        [batch.projection],
      );
      const stored = rows[0]?.position ?? null;
      // Applied already (a replay, or a former lease holder's batch): nothing changes.
      if (stored !== null && BigInt(stored) >= batch.position) return;
      const revisions = await storedRevisions(client, batch.views);
      for (const view of batch.views) {
        const revision = revisions.get(view.id);
        if (revision !== undefined && revision >= view.revision) continue;
        await writeFilter(client, view, batch.changedAt?.get(view.id));
      }
      for (const parked of batch.parked ?? []) await park(client, batch.projection, parked);
      await client.query('UPDATE content_filters.checkpoints SET position = $2::numeric WHERE projection = $1', [batch.projection, batch.position.toString()]);
    });
  }

  /** Parked commits of a projection here, oldest first. */
  async parkedEvents(projection: string): Promise<readonly ParkedEvent[]> {
    const rows = await query<{ position: string; stream_name: string; revision: string; type: string; error: string; parked_at: string }>(
      this.pool,
      `SELECT position::text, stream_name, revision::text, type, error, ${fromUtc("parked_at AT TIME ZONE 'UTC'")} AS parked_at
         FROM content_filters.parked_events WHERE projection = $1 ORDER BY position`,
      [projection],
    );
    return rows.map((r) => ({
      position: BigInt(r.position),
      streamName: r.stream_name,
      revision: BigInt(r.revision),
      type: r.type,
      error: r.error,
      parkedAt: r.parked_at,
    }));
  }

  /** Every row of one account's filters in the three tables, as the drift check compares them. */
  accountRows(accountId: string): Promise<AccountRows> {
    return readAccountRows(this.pool, 'custom_filter_id IN (SELECT id FROM custom_filters WHERE account_id = $1::bigint)', [accountId], accountId);
  }

  /** Accounts with a row in `custom_filters`, in ascending string order (as the read store lists its own). */
  async accountsAfter(after: string | null, limit: number): Promise<readonly string[]> {
    const rows = await query<{ account_id: string }>(
      this.pool,
      `SELECT DISTINCT account_id::text COLLATE "C" AS account_id FROM custom_filters
        WHERE ($1::text IS NULL OR account_id::text COLLATE "C" > $1) ORDER BY 1 LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => r.account_id);
  }
}

const tombstone = (row: FilterRow): FilterView => ({
  id: row.id,
  accountId: row.account_id,
  title: '',
  context: [],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [],
  statuses: [],
  revision: Number(row.revision),
  deleted: true,
});

function viewOf(row: FilterRow, children: AccountRows): FilterView {
  return {
    ...tombstone(row),
    title: row.phrase ?? '',
    context: (row.context ?? []) as FilterContext[],
    filterAction: actionOfRow(row.action ?? 0),
    expiresAt: row.expires_at,
    keywords: children.keywords.filter((k) => k.custom_filter_id === row.id).map((k) => ({ id: k.id, keyword: k.keyword, wholeWord: k.whole_word })),
    statuses: children.statuses.filter((s) => s.custom_filter_id === row.id).map((s) => ({ id: s.id, statusId: s.status_id })),
    deleted: false,
  };
}

async function storedRevisions(client: pg.PoolClient, views: readonly FilterView[]): Promise<Map<string, number>> {
  if (views.length === 0) return new Map();
  const { rows } = await client.query<{ id: string; revision: string }>(
    'SELECT filter_id::text AS id, revision::text FROM content_filters.filter_revisions WHERE filter_id = ANY($1::bigint[]) FOR UPDATE',
    [views.map((v) => v.id)],
  );
  return new Map(rows.map((r) => [r.id, Number(r.revision)]));
}

/**
 * One filter as its view stands: a deleted one's rows leave all three tables; a live one's row is
 * written, and its keywords and statuses become exactly the view's (only rows that differ are touched).
 * A status Mastodon has deleted meanwhile is left out, as its own `ON DELETE CASCADE` would have removed
 * it; a filter whose account Mastodon has deleted is not written.
 */
async function writeFilter(client: pg.PoolClient, view: FilterView, times: Times | undefined): Promise<void> {
  const at = times ?? { createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
  await client.query(
    `INSERT INTO content_filters.filter_revisions (filter_id, account_id, revision, deleted) VALUES ($1::bigint, $2::bigint, $3, $4)
     ON CONFLICT (filter_id) DO UPDATE SET revision = EXCLUDED.revision, deleted = EXCLUDED.deleted`,
    [view.id, view.accountId, view.revision, view.deleted],
  );
  const rows: MastodonFilterRows = mastodonRowsOf(view);
  if (rows.filter === null) {
    await client.query('DELETE FROM custom_filter_keywords WHERE custom_filter_id = $1::bigint', [view.id]);
    await client.query('DELETE FROM custom_filter_statuses WHERE custom_filter_id = $1::bigint', [view.id]);
    await client.query('DELETE FROM custom_filters WHERE id = $1::bigint', [view.id]);
    return;
  }
  const f = rows.filter;
  const account = await client.query('SELECT 1 FROM accounts WHERE id = $1::bigint', [f.account_id]);
  if (account.rowCount === 0) return;
  // The row is rewritten only when its content differs at the log's precision (milliseconds: Mastodon's
  // microseconds truncate as the import read them), so an imported filter's row, which already says what
  // the log says, keeps Mastodon's expires_at and updated_at to the microsecond.
  await client.query(
    `INSERT INTO custom_filters (id, account_id, phrase, context, action, expires_at, created_at, updated_at)
     VALUES ($1::bigint, $2::bigint, $3, $4::varchar[], $5, ${toUtc('$6')}, ${toUtc('$7')}, ${toUtc('$8')})
     ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, phrase = EXCLUDED.phrase, context = EXCLUDED.context,
       action = EXCLUDED.action, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at
     WHERE (custom_filters.account_id, custom_filters.phrase, custom_filters.context, custom_filters.action,
            date_trunc('milliseconds', custom_filters.expires_at))
       IS DISTINCT FROM (EXCLUDED.account_id, EXCLUDED.phrase, EXCLUDED.context, EXCLUDED.action, EXCLUDED.expires_at)`,
    [f.id, f.account_id, f.phrase, f.context, f.action, f.expires_at, at.createdAt, at.updatedAt],
  );
  const keywordIds = rows.keywords.map((k) => k.id);
  await client.query('DELETE FROM custom_filter_keywords WHERE custom_filter_id = $1::bigint AND NOT (id = ANY($2::bigint[]))', [view.id, keywordIds]);
  if (keywordIds.length > 0)
    await client.query(
      `INSERT INTO custom_filter_keywords (id, custom_filter_id, keyword, whole_word, created_at, updated_at)
       SELECT k.id, $1::bigint, k.keyword, k.whole_word, ${toUtc('$5')}, ${toUtc('$5')} FROM unnest($2::bigint[], $3::text[], $4::boolean[]) AS k(id, keyword, whole_word)
       ON CONFLICT (id) DO UPDATE SET custom_filter_id = EXCLUDED.custom_filter_id, keyword = EXCLUDED.keyword, whole_word = EXCLUDED.whole_word,
         updated_at = EXCLUDED.updated_at
       WHERE (custom_filter_keywords.custom_filter_id, custom_filter_keywords.keyword, custom_filter_keywords.whole_word)
         IS DISTINCT FROM (EXCLUDED.custom_filter_id, EXCLUDED.keyword, EXCLUDED.whole_word)`,
      [view.id, keywordIds, rows.keywords.map((k) => k.keyword), rows.keywords.map((k) => k.whole_word), at.updatedAt],
    );
  const statusIds = rows.statuses.map((s) => s.id);
  await client.query('DELETE FROM custom_filter_statuses WHERE custom_filter_id = $1::bigint AND NOT (id = ANY($2::bigint[]))', [view.id, statusIds]);
  if (statusIds.length > 0)
    await client.query(
      `INSERT INTO custom_filter_statuses (id, custom_filter_id, status_id, created_at, updated_at)
       SELECT s.id, $1::bigint, s.status_id, ${toUtc('$4')}, ${toUtc('$4')} FROM unnest($2::bigint[], $3::bigint[]) AS s(id, status_id)
        WHERE EXISTS (SELECT 1 FROM statuses WHERE statuses.id = s.status_id)
       ON CONFLICT DO NOTHING`,
      [view.id, statusIds, rows.statuses.map((s) => s.status_id), at.updatedAt],
    );
}

async function park(client: pg.PoolClient, projection: string, event: ParkedEvent): Promise<void> {
  await client.query(
    `INSERT INTO content_filters.parked_events (projection, position, stream_name, revision, type, error, parked_at)
     VALUES ($1, $2::numeric, $3, $4::numeric, $5, $6, $7::timestamptz) ON CONFLICT DO NOTHING`,
    [projection, event.position.toString(), event.streamName, event.revision.toString(), event.type, event.error, event.parkedAt],
  );
}
