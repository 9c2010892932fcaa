import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from '../../shared/sqlite.ts';
import type { AnnouncedPosition } from './announced-positions.ts';

/**
 * Rows of `announced_positions` (step 3 of the file's schema). Positions are decimal text, since an
 * EventStoreDB position may pass 2^63; the guard compares them as numbers by length, then digits.
 */
/** Synchronous, as better-sqlite3 is: the read store wraps each call to translate its errors. */
export class SqliteAnnouncedPositions {
  private readonly read: BetterSqlite3.Statement<[string], { position: string | null }>;
  private readonly write: BetterSqlite3.Statement<[string, string | null]>;

  constructor(db: SqliteDatabase) {
    this.read = db.prepare('SELECT position FROM announced_positions WHERE channel = ?');
    this.write = db.prepare(
      `INSERT INTO announced_positions (channel, position) VALUES (?, ?)
       ON CONFLICT (channel) DO UPDATE SET position = excluded.position
       WHERE excluded.position IS NOT NULL AND (position IS NULL OR length(excluded.position) > length(position)
         OR (length(excluded.position) = length(position) AND excluded.position > position))`,
    );
  }

  announced(channel: string): AnnouncedPosition | null {
    const row = this.read.get(channel);
    if (!row) return null;
    return { position: row.position === null ? null : BigInt(row.position) };
  }

  markAnnounced(channel: string, position: bigint | null): void {
    this.write.run(channel, position === null ? null : position.toString());
  }
}
