import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { announcedPositionsContract } from '../contracts/announced-positions.contract.ts';
import { hostileIdsContract } from '../contracts/hostile-ids.contract.ts';
import { managedReadStoreContract, type StoreClock } from '../contracts/read-model-admin.contract.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';

const url = process.env.MONGODB_URL;

describe('MongoDB read store', () => {
  const databases = new WeakMap<ManagedReadStore, string>();
  const created: string[] = [];

  const fixture = () => {
    if (!url) {
      console.log('    (MongoDB contracts skipped: set MONGODB_URL, e.g. mongodb://localhost:27017, to run them against a server)');
      return null;
    }
    return {
      async open() {
        // Every store gets a database of its own, so no test depends on another's clean-up.
        const database = `cf_test_${randomUUID().slice(0, 8)}`;
        created.push(database);
        const store = await MongoReadStore.connect(url, database);
        databases.set(store, database);
        return store;
      },
      async openSibling(store: ManagedReadStore, clock?: StoreClock) {
        return MongoReadStore.connect(url, databases.get(store), clock?.now ? { serverClock: clock.now } : {});
      },
    };
  };

  readStoreContract('MongoDB', fixture);
  managedReadStoreContract('MongoDB', fixture);
  announcedPositionsContract('MongoDB', fixture);
  hostileIdsContract('MongoDB', fixture);

  after(async () => {
    if (!url || created.length === 0) return;
    const client = await MongoClient.connect(url);
    for (const database of created)
      await client
        .db(database)
        .dropDatabase()
        .catch(() => {});
    await client.close();
  });
});
