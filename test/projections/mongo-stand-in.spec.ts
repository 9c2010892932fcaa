import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { MongoReadStore } from '../../src/projections/mongo-read-store.ts';
import type { ManagedReadStore } from '../../src/projections/read-model-admin.ts';
import { hostileIdsContract } from '../contracts/hostile-ids.contract.ts';
import { managedReadStoreContract } from '../contracts/read-model-admin.contract.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';

// Debian's python3 (not a pyenv one) is the interpreter that has python3-mockupdb and python3-mongomock.
const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('../support/mongo-stand-in.py', import.meta.url).pathname;

function standInMissing(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import mockupdb, mongomock'], { encoding: 'utf8' });
  return probe.status === 0 ? null : 'install python3-mockupdb and python3-mongomock (Debian) to run it';
}

/**
 * The MongoDB adapter's contracts against a wire-protocol STAND-IN (mockupdb answering from mongomock),
 * not a MongoDB server: it runs the adapter's real queries, upserts and duplicate-key paths in CI. The
 * real-server run is test/projections/mongo-read-store.spec.ts with MONGODB_URL.
 */
describe('MongoDB read store against a wire-protocol stand-in (mockupdb + mongomock, not a real server)', function () {
  this.timeout(20_000);
  let child: ChildProcess | null = null;
  let url: string | null = null;
  const missing = standInMissing();
  const databases = new WeakMap<ManagedReadStore, string>();

  before(async () => {
    if (missing) return;
    child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next().then((r) => [r.value as string]);
    url = `mongodb://127.0.0.1:${line!.trim()}/?directConnection=true`;
  });

  after(() => {
    child?.kill('SIGKILL');
  });

  const fixture = () => {
    if (missing) {
      console.log(`    (MongoDB stand-in skipped: ${missing})`);
      return null;
    }
    return {
      async open() {
        const database = `cf_${randomUUID().slice(0, 8)}`;
        const store = await MongoReadStore.connect(url!, database);
        databases.set(store, database);
        return store;
      },
      async openSibling(store: ManagedReadStore) {
        return MongoReadStore.connect(url!, databases.get(store)!);
      },
    };
  };

  readStoreContract('MongoDB stand-in', fixture);
  managedReadStoreContract('MongoDB stand-in', fixture);
  hostileIdsContract('MongoDB stand-in', fixture);
});
