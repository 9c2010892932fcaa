import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { mongoStandIn, standInMissing } from './mongo-stand-in.ts';
import { scratchDir } from './scratch-dir.ts';

/** Where an adapter keeps its data: a data directory, and MongoDB when a URL is given. */
export type StoreLocation = { readonly dataDir: string; readonly mongodbUrl?: string; readonly mongoDatabase?: string };

/** Hands out a fresh location per call (a new directory, a new database), so no test sees another's data. */
export interface LocationFixture {
  fresh(): StoreLocation;
}

export type RegisterContract = (name: string, fixture: () => LocationFixture | null) => void;

/**
 * Registers a contract suite for each place a shared store can live: SQLite in DATA_DIR; MongoDB through
 * the wire-protocol STAND-IN (mockupdb answering from mongomock, not a server); a real MongoDB server
 * when MONGODB_URL is set. A place that cannot run here prints why and its suite is skipped.
 */
export function eachStoreLocation(register: RegisterContract): void {
  register('SQLite', () => ({ fresh: () => ({ dataDir: scratchDir() }) }));

  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  register('MongoDB stand-in (mockupdb + mongomock, not a server)', () => {
    if (missing) {
      console.log(`    (MongoDB stand-in skipped: ${missing})`);
      return null;
    }
    return { fresh: () => ({ dataDir: scratchDir(), mongodbUrl: standIn.url(), mongoDatabase: `cf_${randomUUID().slice(0, 8)}` }) };
  });

  const url = process.env.MONGODB_URL;
  const created: string[] = [];
  register('MongoDB server', () => {
    if (!url) {
      console.log('    (MongoDB server contracts skipped: set MONGODB_URL, e.g. mongodb://localhost:27017, to run them against a server)');
      return null;
    }
    return {
      fresh() {
        const database = `cf_test_${randomUUID().slice(0, 8)}`;
        created.push(database);
        return { dataDir: scratchDir(), mongodbUrl: url, mongoDatabase: database };
      },
    };
  });
  after(async () => {
    if (!url || created.length === 0) return;
    const client = await MongoClient.connect(url);
    for (const database of created.splice(0))
      await client
        .db(database)
        .dropDatabase()
        .catch(() => {});
    await client.close();
  });
}

/** Strings that must stay plain data in every adapter: prototype names, operators, paths, a huge one. */
export const HOSTILE_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', '$where', '$gt', 'a.b', '$.x', 'x'.repeat(100_000), ''];
