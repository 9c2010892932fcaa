import assert from 'node:assert/strict';
import { FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { StoreUnavailableError } from '../../src/shared/store-unavailable.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

/** The read store as the API process sees it, whose next `failures` checkpoint reads fail as a lost connection would. */
function flakyCheckpoint(inner: ManagedReadStore): ManagedReadStore & { failures: number } {
  const state = { failures: 0 };
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'failures') return state.failures;
      if (property === 'checkpoint') {
        return async (projection: string) => {
          if (state.failures > 0) {
            state.failures -= 1;
            throw new StoreUnavailableError('read store unreachable', { store: 'the read models' });
          }
          return target.checkpoint(projection);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, property, value) {
      if (property !== 'failures') return false;
      state.failures = value as number;
      return true;
    },
  }) as ManagedReadStore & { failures: number };
}

describe('read-your-writes when the read store fails during the wait', function () {
  this.timeout(30_000);

  it('answers a committed write with its filter, not 503, and a retry is not needed', async () => {
    const dir = scratchDir();
    let reads: (ManagedReadStore & { failures: number }) | undefined;
    const server = await TestServer.start({ DATA_DIR: dir, PROJECTOR: 'off' }, undefined, (stores) => {
      reads = flakyCheckpoint(stores.reads);
      return { ...stores, reads };
    });
    // The projector runs in another process in production; here on its own connection.
    const projectorReads = SqliteReadStore.inDataDir(dir);
    const projector = new FilterProjector(server.service.stores.events, projectorReads);
    try {
      await projector.start();
      const account = await server.account();
      reads!.failures = 1;
      const created = await server.request('POST', '/api/v2/filters', { token: account.token, json: { title: 'spoilers', context: ['home'] } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.title, 'spoilers');
      assert.equal(reads!.failures, 0, 'the wait did read the failing checkpoint');
      const listed = await server.request('GET', '/api/v2/filters', { token: account.token });
      assert.deepEqual(
        listed.body.map((filter: { id: string }) => filter.id),
        [created.body.id],
      );
    } finally {
      await projector.stop();
      await projectorReads.close();
      await server.close();
    }
  });
});
