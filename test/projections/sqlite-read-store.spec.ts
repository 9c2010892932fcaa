import { SqliteReadStore } from '../../src/projections/sqlite-read-store.ts';
import type { ManagedReadStore } from '../../src/projections/read-model-admin.ts';
import { hostileIdsContract } from '../contracts/hostile-ids.contract.ts';
import { managedReadStoreContract } from '../contracts/read-model-admin.contract.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

const dirs = new WeakMap<ManagedReadStore, string>();

readStoreContract('SQLite', () => ({
  async open() {
    return SqliteReadStore.inDataDir(tempDir());
  },
}));

managedReadStoreContract('SQLite', () => ({
  async open() {
    const dir = tempDir();
    const store = SqliteReadStore.inDataDir(dir);
    dirs.set(store, dir);
    return store;
  },
  async openSibling(store) {
    return SqliteReadStore.inDataDir(dirs.get(store)!);
  },
}));

hostileIdsContract('SQLite', () => ({
  async open() {
    return SqliteReadStore.inDataDir(tempDir());
  },
}));
