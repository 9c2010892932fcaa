import { openSqlite, statementCache, type SqliteDatabase } from '../shared/sqlite.ts';
import { sqlStep, type SqliteSchema } from '../shared/sqlite-migrations.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
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

/** How often, at most, expired counters are swept (one DELETE, bounded by the index). */
const SWEEP_EVERY_MS = 60_000;

/** `<DATA_DIR>/rate-limits.sqlite`: shared by the processes on one host; an upsert per counted request. */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;
  private lastSweep = 0;

  constructor(path: string) {
    // Counters are not acknowledged writes: losing the last ones in a power cut costs nothing.
    this.db = openSqlite(path, schema, 'rebuildable');
    this.sql = statementCache(this.db);
  }

  static inDataDir(dataDir: string): SqliteRateLimitStore {
    return new SqliteRateLimitStore(storePath(dataDir, 'rateLimits'));
  }

  async increment(key: string, expiresAtMs: number): Promise<number> {
    const now = Date.now();
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      this.sql('DELETE FROM counters WHERE expires_at < ?').run(now);
    }
    return this.sql<[string, number], number>(
      'INSERT INTO counters (key, count, expires_at) VALUES (?, 1, ?) ON CONFLICT (key) DO UPDATE SET count = count + 1 RETURNING count',
    )
      .pluck()
      .get(key, expiresAtMs)!;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
