import { sqlStep, type SqliteSchema } from '../../shared/sqlite-migrations.ts';
import { countKeywordCharacters, keyRecordsByFilter } from './sqlite-generation-tables.ts';

/**
 * `read-models.sqlite`, step by step. Add a step for every change; never edit one that has shipped.
 * The tables of each generation are made from the newest layout in `sqlite-generation-tables.ts` when
 * the generation is created; a step that changes that layout must change every generation the file holds.
 */
export const readModelsSchema: SqliteSchema = {
  name: 'read-models',
  steps: [
    // IF NOT EXISTS / OR IGNORE: files written before versions were recorded already have these.
    sqlStep(
      1,
      'the generation pointer (current, pending, next) and the projection leases',
      `CREATE TABLE IF NOT EXISTS read_model_pointer (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        current INTEGER NOT NULL,
        pending INTEGER,
        next INTEGER NOT NULL
      );
      INSERT OR IGNORE INTO read_model_pointer (id, current, pending, next) VALUES (1, 0, NULL, 1);
      CREATE TABLE IF NOT EXISTS projection_leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );`,
    ),
    {
      version: 2,
      description: 'v1 records and status look-ups keyed by filter; parked events; in every stored generation',
      up: keyRecordsByFilter,
    },
    sqlStep(
      3,
      "the announcers' checkpoints, one per transport, outside the generations",
      `CREATE TABLE announced_positions (
        channel TEXT PRIMARY KEY,
        position TEXT
      );`,
    ),
    {
      version: 4,
      description: "each filter's keyword characters in its row, for the per-account limits; in every stored generation",
      up: countKeywordCharacters,
    },
  ],
};
