import type { SqliteStep } from '../shared/sqlite-migrations.ts';
import { RECORDED_HASH_VERSION } from './event-chain.ts';

/**
 * Schema step of `events.sqlite`: from here on each event is hashed with its id and recorded time
 * (event-chain.ts, `recordedEventHash`), marked `hash_version` 2. The events already stored keep their
 * version 1 hashes and NULL: hashing them again would change every chain hash, and every head an auditor
 * recorded before would stop verifying. The trigger refuses a row of any other version, so a process of
 * an older build still running on the file fails its append instead of writing a version 1 hash that
 * would leave the new event's time uncovered.
 */
export const recordedHashStep: SqliteStep = {
  version: 4,
  description: 'hash_version: events appended from now on are hashed with their event id and recorded time',
  up: (db) =>
    db.exec(`
      ALTER TABLE events ADD COLUMN hash_version INTEGER;
      CREATE TRIGGER IF NOT EXISTS events_need_recorded_hash BEFORE INSERT ON events
      WHEN NEW.hash_version IS NOT ${RECORDED_HASH_VERSION}
      BEGIN
        SELECT RAISE(ABORT, 'events.sqlite hashes the event id and recorded time: this build is older than the file (append refused)');
      END;
    `),
};
