import { setImmediate as nextTurn } from 'node:timers/promises';
import { openSqlite, statementCache, type SqliteDatabase } from '../shared/sqlite.ts';
import { REQUEST_BUSY_LIMIT_MS, sharedStoreCall } from '../shared/sqlite-busy.ts';
import { sqlStep, type SqliteSchema } from '../shared/sqlite-migrations.ts';
import { WalCheckpointer } from '../shared/wal-checkpointer.ts';
import type { CounterIncrement, RateLimitStore } from './rate-limit-store.ts';
import { storePath } from '../shared/store-files.ts';

const schema: SqliteSchema = {
  name: 'rate-limits',
  steps: [
    sqlStep(
      1,
      'counters per throttle, key and window',
      `CREATE TABLE counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at INTEGER NOT NULL);
       CREATE INDEX counters_expiry ON counters (expires_at);`,
    ),
  ],
};

/** How often, at most, expired counters are swept. */
const SWEEP_EVERY_MS = 60_000;

/** Expired counters deleted per step of a sweep: a few milliseconds of the event loop at most. */
const SWEEP_STEP_ROWS = 500;

/** The WAL is cut back to this after each checkpoint, instead of staying as large as it ever grew. */
const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

const STORE = 'rate limits';
const SHOWN_AS = 'the rate-limit counters';

/** `<DATA_DIR>/rate-limits.sqlite`: shared by the processes on one host; one transaction per batch of counts. */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly db: SqliteDatabase;
  private readonly addAll: (increments: readonly CounterIncrement[]) => number[];
  private readonly sweepStep: (nowMs: number) => number;
  private readonly checkpoints: WalCheckpointer;
  private lastSweep = 0;
  private sweeping: Promise<void> | null = null;

  constructor(path: string) {
    // Counters are not acknowledged writes: losing the last ones in a power cut costs nothing.
    this.db = openSqlite(path, schema, 'rebuildable', 'main-thread');
    this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    this.checkpoints = new WalCheckpointer(this.db);
    const sql = statementCache(this.db);
    // One transaction per batch, each statement run to completion: an INSERT ... RETURNING read with .get()
    // outside a transaction stays unfinished with its transaction open, SQLite never checkpoints, and the
    // WAL grew by a page per count (445 MB over 100,000).
    const upsert = sql('INSERT INTO counters (key, count, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET count = count + excluded.count');
    const read = sql<[string], number>('SELECT count FROM counters WHERE key = ?').pluck();
    const addAll = this.db.transaction((increments: readonly CounterIncrement[]) =>
      increments.map(({ key, by, expiresAtMs }) => {
        upsert.run(key, by, expiresAtMs);
        return read.get(key)!;
      }),
    );
    this.addAll = (increments) => {
      const counts = addAll(increments);
      this.checkpoints.wrote();
      return counts;
    };
    const sweep = sql('DELETE FROM counters WHERE key IN (SELECT key FROM counters WHERE expires_at < ? LIMIT ?)');
    this.sweepStep = (nowMs) => {
      const { changes } = sweep.run(nowMs, SWEEP_STEP_ROWS);
      this.checkpoints.wrote();
      return changes;
    };
  }

  static inDataDir(dataDir: string): SqliteRateLimitStore {
    return new SqliteRateLimitStore(storePath(dataDir, 'rateLimits'));
  }

  async incrementAll(increments: readonly CounterIncrement[]): Promise<readonly number[]> {
    const now = Date.now();
    if (now - this.lastSweep > SWEEP_EVERY_MS && !this.sweeping) {
      this.lastSweep = now;
      this.sweeping = this.sweep(now).finally(() => (this.sweeping = null));
    }
    await this.checkpoints.room();
    return sharedStoreCall(STORE, () => this.addAll(increments), REQUEST_BUSY_LIMIT_MS, SHOWN_AS);
  }

  /** Deletes expired counters a step at a time, each its own short transaction, letting requests run between. */
  private async sweep(nowMs: number): Promise<void> {
    try {
      for (;;) {
        await this.checkpoints.room();
        // No request waits for a sweep: it may wait for the lock as long as any main-thread call.
        if ((await sharedStoreCall(STORE, () => this.sweepStep(nowMs))) < SWEEP_STEP_ROWS) return;
        await nextTurn();
      }
    } catch {
      // A locked or failing file: the next minute's sweep tries again; counts meanwhile say what is wrong.
    }
  }

  async close(): Promise<void> {
    await this.sweeping;
    await this.checkpoints.close();
    if (this.db.open) this.db.close();
  }
}
