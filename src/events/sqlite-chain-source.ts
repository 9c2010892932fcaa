import { openSqlite, statementCache, type BusyWait, type SqliteDatabase } from '../shared/sqlite.ts';
import type { ChainedEvent, ChainSource } from './chain-verify.ts';
import type { ChainHead } from './event-chain.ts';
import { accountIndexMismatch } from './sqlite-account-index-check.ts';
import { eventsSchema } from './sqlite-events-schema.ts';

/** Rows per read: big enough that a read costs little per row, small enough that memory stays flat. */
const PAGE = 4096;

type Row = [number | bigint, string, number | bigint, string, string, string, string | null, string | null, string | null, unknown, unknown, unknown];

const toChained = ([
  position,
  stream,
  revision,
  type,
  data,
  metadata,
  previousHash,
  eventHash,
  chainHash,
  eventId,
  recordedAt,
  hashVersion,
]: Row): ChainedEvent => ({
  position: BigInt(position),
  stream,
  revision: BigInt(revision),
  type,
  data,
  metadata,
  previousHash,
  eventHash,
  chainHash,
  eventId,
  recordedAt,
  hashVersion: typeof hashVersion === 'bigint' ? Number(hashVersion) : hashVersion,
});

/**
 * `events.sqlite` for `verify` and the head the service logs: its own read connection (no writer
 * thread), the log read by position in pages, with the text of each column exactly as stored.
 */
export class SqliteChainSource implements ChainSource {
  readonly logChain = true;
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;

  /** `range`: only the events after `after` and up to `through` (null: to the end), for one thread of a split walk. */
  constructor(
    path: string,
    private readonly range: { readonly after: bigint; readonly through: bigint | null } = { after: 0n, through: null },
    /** `main-thread` for the service's head reader, whose calls then go through retryWhileBusy; `blocking` for verify. */
    busyWait: BusyWait = 'blocking',
  ) {
    this.db = openSqlite(path, eventsSchema, 'full', busyWait);
    this.sql = statementCache(this.db);
  }

  async *pages(): AsyncIterable<readonly ChainedEvent[]> {
    const page = this.sql<[bigint, number], Row>(
      `SELECT position, stream, revision, type, data, metadata, prev_hash, event_hash, chain_hash, event_id, recorded_at, hash_version
       FROM events WHERE position > ? ORDER BY position LIMIT ?`,
    ).raw(true);
    const { through } = this.range;
    let after = this.range.after;
    for (;;) {
      const rows = page.all(after, PAGE);
      const events = (through === null ? rows : rows.filter((row) => BigInt(row[0]) <= through)).map(toChained);
      if (events.length > 0) yield events;
      if (rows.length < PAGE || events.length < rows.length) return;
      after = events.at(-1)!.position;
    }
  }

  async stored(stream: string, revision: bigint): Promise<{ position: bigint; eventHash: string } | null> {
    const row = this.sql<[string, bigint], { position: number | bigint; event_hash: string | null }>(
      'SELECT position, event_hash FROM events WHERE stream = ? AND revision = ?',
    ).get(stream, revision);
    // A row without a hash lies later in the log (the walk stopped at it otherwise): found out of order.
    return row ? { position: BigInt(row.position), eventHash: row.event_hash ?? '' } : null;
  }

  /** The log chain is stored with every event: nothing is sealed apart. */
  async seals(): Promise<readonly ChainHead[]> {
    return [];
  }

  /** The stored chain hash of the event at `position`; null when there is none. */
  linkAt(position: bigint): string | null {
    return this.sql<[bigint], { chain_hash: string | null }>('SELECT chain_hash FROM events WHERE position = ?').get(position)?.chain_hash ?? null;
  }

  /** Positions that cut the log into `parts` stretches of about equal counts of events (an index walk). */
  splitPoints(parts: number): { readonly events: number; readonly points: readonly bigint[] } {
    const events = Number(this.sql<[], { n: number }>('SELECT count(*) AS n FROM events').get()!.n);
    const nth = this.sql<[number], { position: number | bigint }>('SELECT position FROM events ORDER BY position LIMIT 1 OFFSET ?');
    const points = Array.from({ length: parts - 1 }, (_, i) => nth.get(Math.max(0, Math.floor(((i + 1) * events) / parts) - 1))?.position);
    return { events, points: points.filter((p) => p !== undefined).map((p) => BigInt(p)) };
  }

  /** The log chain's last link, from its column: constant time, whatever the log's length. */
  head(): ChainHead | null {
    const row = this.sql<[], { position: number | bigint; chain_hash: string | null }>(
      'SELECT position, chain_hash FROM events ORDER BY position DESC LIMIT 1',
    ).get();
    return row?.chain_hash ? { position: BigInt(row.position), hash: row.chain_hash } : null;
  }

  /** Whether the account index (stream_owners) is what the log implies; the chains do not cover it. */
  accountIndexMismatch(): ReturnType<typeof accountIndexMismatch> {
    return accountIndexMismatch(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
