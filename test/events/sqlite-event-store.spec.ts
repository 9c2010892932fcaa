import { join } from 'node:path';
import { verifyChains } from '../../src/events/chain-verify.ts';
import { SqliteChainSource } from '../../src/events/sqlite-chain-source.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const dirs = new WeakMap<object, string>();

eventStoreContract('SQLite', () => ({
  async open() {
    const dir = scratchDir();
    const store = SqliteEventStore.inDataDir(dir);
    dirs.set(store, dir);
    return store;
  },
  async openSibling(store) {
    return SqliteEventStore.inDataDir(dirs.get(store)!);
  },
  async verifyChains(store) {
    const source = new SqliteChainSource(join(dirs.get(store)!, 'events.sqlite'));
    try {
      return await verifyChains(source);
    } finally {
      source.close();
    }
  },
}));
