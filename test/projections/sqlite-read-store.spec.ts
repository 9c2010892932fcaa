import { SqliteReadStore } from '../../src/projections/sqlite-read-store.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

readStoreContract('SQLite', () => ({
  async open() {
    return SqliteReadStore.inDataDir(tempDir());
  },
}));
