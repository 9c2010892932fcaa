import type { SqliteStep } from '../shared/sqlite-migrations.ts';
import { chainHash, eventHash, GENESIS } from './event-chain.ts';
import { StreamHeads } from './stream-heads.ts';

/** Events hashed per read of the migration: its memory stays flat whatever the log's length. */
const BATCH = 10_000;

type Row = [number | bigint, string, number | bigint, string, string, string];

/**
 * Schema step of `events.sqlite`: the tamper-evidence chains (event-chain.ts) as columns written with each
 * event (the stream's previous hash too, so each row can be checked on its own), and the events already stored hashed in position order, batch by batch, in the migration's
 * one transaction (so a crash leaves the file unhashed and at the old version, to be done again). The
 * trigger refuses a row without its hashes: a process of an older build still running on the file during
 * a rolling deploy fails its append instead of leaving a hole in the chain.
 */
export const chainStep: SqliteStep = {
  version: 3,
  description: 'prev_hash, event_hash and chain_hash: the tamper-evidence chains per stream and over the log, filled for the events already stored',
  up: (db) => {
    db.exec(`
      ALTER TABLE events ADD COLUMN prev_hash TEXT;
      ALTER TABLE events ADD COLUMN event_hash TEXT;
      ALTER TABLE events ADD COLUMN chain_hash TEXT;
      CREATE TRIGGER IF NOT EXISTS events_need_chain BEFORE INSERT ON events
      WHEN NEW.prev_hash IS NULL OR NEW.event_hash IS NULL OR NEW.chain_hash IS NULL
      BEGIN
        SELECT RAISE(ABORT, 'events.sqlite keeps hash chains: this build is older than the file (append refused)');
      END;
    `);
    const page = db
      .prepare<[bigint, number]>('SELECT position, stream, revision, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?')
      .raw(true);
    const previousOf = db.prepare<[string, bigint], { event_hash: string | null }>('SELECT event_hash FROM events WHERE stream = ? AND revision = ?');
    const store = db.prepare<[string, string, string, bigint]>('UPDATE events SET prev_hash = ?, event_hash = ?, chain_hash = ? WHERE position = ?');
    const heads = new StreamHeads();
    let after = 0n;
    let chain = GENESIS;
    for (;;) {
      const rows = page.all(after, BATCH) as Row[];
      for (const [position, stream, revision, type, data, metadata] of rows) {
        const rev = BigInt(revision);
        const known = heads.get(stream);
        const previous = rev === 0n ? GENESIS : known?.revision === rev - 1n ? known.hash : (previousOf.get(stream, rev - 1n)?.event_hash ?? GENESIS);
        const hashed = eventHash({ stream, revision: rev, type, data, metadata }, previous);
        chain = chainHash(chain, position, hashed);
        store.run(previous, hashed, chain, BigInt(position));
        heads.set(stream, { revision: rev, hash: hashed });
        after = BigInt(position);
      }
      if (rows.length < BATCH) return;
    }
  },
};
