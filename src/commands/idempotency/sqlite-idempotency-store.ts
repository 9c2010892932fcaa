import { openSqlite, statementCache, type SqliteDatabase } from '../../shared/sqlite.ts';
import { sqlStep, type SqliteSchema } from '../../shared/sqlite-migrations.ts';
import { REQUEST_BUSY_LIMIT_MS, retryingStore } from '../../shared/sqlite-busy.ts';
import { IDEMPOTENCY_KEY_TTL_MS, recordIdOf, type Claim, type IdempotencyKey, type IdempotencyStore, type KeyedCommand } from './idempotency-store.ts';
import { storePath } from '../../shared/store-files.ts';

/** `idempotency.sqlite`, step by step. Add a step for every change; never edit one that has shipped. */
export const idempotencySchema: SqliteSchema = {
  name: 'idempotency',
  steps: [
    sqlStep(
      1,
      'Idempotency-Key records: the command a key started, until it expires',
      `CREATE TABLE idempotency_keys (
        id TEXT PRIMARY KEY,
        command_id TEXT NOT NULL,
        started_at_ms INTEGER NOT NULL,
        command TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL
      );
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at_ms);`,
    ),
  ],
};

interface Row {
  command_id: string;
  started_at_ms: number;
  command: string;
}

/** Expired records removed per claim: enough to keep up with any rate of new keys, bounded per request. */
const PURGE_PER_CLAIM = 16;

/** Embedded Idempotency-Key records in `<DATA_DIR>/idempotency.sqlite`, shared by the processes of a host. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly db: SqliteDatabase;
  private readonly claimOne: (id: string, proposed: KeyedCommand, nowMs: number) => Claim;

  constructor(path: string) {
    this.db = openSqlite(path, idempotencySchema, 'full', 'main-thread');
    const sql = statementCache(this.db);
    const purge = sql('DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at_ms <= ? LIMIT ?)');
    const dropExpired = sql('DELETE FROM idempotency_keys WHERE id = ? AND expires_at_ms <= ?');
    const insert = sql(
      `INSERT INTO idempotency_keys (id, command_id, started_at_ms, command, expires_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    );
    const find = sql<[string], Row>('SELECT command_id, started_at_ms, command FROM idempotency_keys WHERE id = ?');
    // BEGIN IMMEDIATE: the purge, the insert and the read are one step against every other process.
    const claim = this.db.transaction((id: string, proposed: KeyedCommand, nowMs: number): Claim => {
      purge.run(nowMs, PURGE_PER_CLAIM);
      dropExpired.run(id, nowMs);
      const { changes } = insert.run(id, proposed.commandId, proposed.startedAtMs, JSON.stringify(proposed.command), nowMs + IDEMPOTENCY_KEY_TTL_MS);
      if (changes === 1) return { keyed: proposed, repeated: false };
      const row = find.get(id)!;
      return { keyed: { commandId: row.command_id, startedAtMs: row.started_at_ms, command: JSON.parse(row.command) as unknown }, repeated: true };
    });
    this.claimOne = (id, proposed, nowMs) => claim.immediate(id, proposed, nowMs);
  }

  /** A claim (one transaction, rolled back when busy) retried while another process holds the file, a 503 past REQUEST_BUSY_LIMIT_MS. */
  static inDataDir(dataDir: string): SqliteIdempotencyStore {
    return retryingStore(new SqliteIdempotencyStore(storePath(dataDir, 'idempotency')), 'Idempotency-Key records', ['claim'], {
      limitMs: REQUEST_BUSY_LIMIT_MS,
      shownAs: 'the Idempotency-Key store',
    });
  }

  async claim(key: IdempotencyKey, proposed: KeyedCommand, nowMs: number): Promise<Claim> {
    return this.claimOne(recordIdOf(key), proposed, nowMs);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
