import { sqlStep, type SqliteSchema } from '../shared/sqlite-migrations.ts';
import { accountIndexStep } from './sqlite-account-index.ts';
import { chainStep } from './sqlite-chain-step.ts';
import { recordedHashStep } from './sqlite-recorded-hash-step.ts';

/** `events.sqlite`, step by step. Add a step for every change; never edit one that has shipped. */
export const eventsSchema: SqliteSchema = {
  name: 'events',
  steps: [
    // IF NOT EXISTS: files written before versions were recorded already have this table.
    sqlStep(
      1,
      'the event log: one row per event, unique per stream revision',
      `CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        stream TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        UNIQUE (stream, revision)
      );`,
    ),
    accountIndexStep,
    chainStep,
    recordedHashStep,
  ],
};
