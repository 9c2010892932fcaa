import type BetterSqlite3 from 'better-sqlite3';
import type { LeaseHolder, Leases } from '../../shared/leases.ts';
import type { SqliteDatabase } from '../../shared/sqlite.ts';

/**
 * SQLite's own clock in ms (`unixepoch('subsec')`, SQLite 3.42+: the operating system's time through
 * SQLite's VFS), so leases are judged by the store rather than by whatever clock this process was given.
 */
export function sqliteClock(db: SqliteDatabase): () => number {
  const clock = db.prepare<[], { ms: number }>("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS ms");
  return () => clock.get()!.ms;
}

/** Leases as rows of `projection_leases` (made by step 1 of the file's schema); every change is one write transaction, so two processes never both win. */
export class SqliteLeases implements Leases {
  private readonly holder: BetterSqlite3.Statement<[string], { owner: string; expires_at: number }>;
  private readonly put: BetterSqlite3.Statement<[string, string, number]>;
  private readonly take: (name: string, owner: string, ttlMs: number) => boolean;
  private readonly replace: (name: string, from: string, owner: string, ttlMs: number) => boolean;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.holder = db.prepare('SELECT owner, expires_at FROM projection_leases WHERE name = ?');
    this.put = db.prepare(
      'INSERT INTO projection_leases (name, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at',
    );
    const take = db.transaction((name: string, owner: string, ttlMs: number) => {
      const at = this.now();
      const held = this.holder.get(name);
      if (held && held.owner !== owner && held.expires_at > at) return false;
      this.put.run(name, owner, at + ttlMs);
      return true;
    });
    const replace = db.transaction((name: string, from: string, owner: string, ttlMs: number) => {
      if (this.holder.get(name)?.owner !== from) return false;
      this.put.run(name, owner, this.now() + ttlMs);
      return true;
    });
    this.take = (...args) => take.immediate(...args);
    this.replace = (...args) => replace.immediate(...args);
  }

  async tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.take(name, owner, ttlMs);
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    if (this.db.open) this.db.prepare('DELETE FROM projection_leases WHERE name = ? AND owner = ?').run(name, owner);
  }

  async leaseHolder(name: string): Promise<LeaseHolder | null> {
    const held = this.holder.get(name);
    return held ? { owner: held.owner, expiresAt: held.expires_at } : null;
  }

  async takeOverLease(name: string, from: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.replace(name, from, owner, ttlMs);
  }
}
