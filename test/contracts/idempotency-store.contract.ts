import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_TTL_MS, type IdempotencyStore, type KeyedCommand } from '../../src/commands/idempotency/idempotency-store.ts';
import { openIdempotencyStore } from '../../src/stores.ts';
import { HOSTILE_KEYS, type LocationFixture } from '../support/store-locations.ts';
import { contractSubject } from './contract-subject.ts';
import { storesAtLocations } from './stores-at-locations.ts';

const T0 = Date.parse('2026-11-26T06:00:00.000Z');
const SCOPE = 'POST /api/v2/filters';

const command = (title: string): KeyedCommand => ({
  commandId: randomUUID(),
  startedAtMs: T0,
  command: { type: 'CreateFilter', data: { filterId: '117661866608440641', title, context: ['home', 'thread'], nested: { ok: true, n: null } } },
});

/** The IdempotencyStore port: what the SQLite and MongoDB adapters both promise. */
export function idempotencyStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`IdempotencyStore contract: ${name}`, function () {
    const given = contractSubject<IdempotencyStore>(storesAtLocations(fixture, openIdempotencyStore));
    const key = (accountId = '1', keyValue: string = randomUUID(), scope = SCOPE) => ({ accountId, scope, key: keyValue });

    it('records the first command for a key and answers it, unchanged, to every later claim within the hour', async () => {
      const k = key();
      const first = command('first');
      assert.deepEqual(await given.store.claim(k, first, T0), { keyed: first, repeated: false });
      assert.deepEqual(await given.store.claim(k, command('second'), T0 + 1000), { keyed: first, repeated: true });
      assert.deepEqual(await given.store.claim(k, command('third'), T0 + IDEMPOTENCY_KEY_TTL_MS - 1), { keyed: first, repeated: true });
    });

    it('forgets a key after an hour: the next claim records its own command', async () => {
      const k = key();
      await given.store.claim(k, command('first'), T0);
      const later = command('later');
      assert.deepEqual(await given.store.claim(k, later, T0 + IDEMPOTENCY_KEY_TTL_MS), { keyed: later, repeated: false });
      assert.deepEqual(await given.store.claim(k, command('again'), T0 + IDEMPOTENCY_KEY_TTL_MS + 1), { keyed: later, repeated: true });
    });

    it('keeps accounts and scopes apart: the same key names different records', async () => {
      const value = randomUUID();
      const claims = await Promise.all([
        given.store.claim(key('1', value), command('a'), T0),
        given.store.claim(key('2', value), command('b'), T0),
        given.store.claim(key('1', value, 'POST /api/v1/filters'), command('c'), T0),
      ]);
      assert.deepEqual(
        claims.map((c) => c.repeated),
        [false, false, false],
      );
    });

    it('gives racing claims of one key, from two connections, the same record', async () => {
      const sibling = await given.openSibling();
      const k = key();
      const [a, b] = [command('a'), command('b')];
      const claims = await Promise.all([given.store.claim(k, a, T0), sibling.claim(k, b, T0)]);
      assert.equal(claims.filter((c) => !c.repeated).length, 1);
      assert.deepEqual(claims[0].keyed, claims[1].keyed);
    });

    it('keeps a record across a restart of the store', async () => {
      const k = key();
      const first = command('durable');
      await given.store.claim(k, first, T0);
      await given.restart();
      assert.deepEqual(await given.store.claim(k, command('after restart'), T0 + 1), { keyed: first, repeated: true });
    });

    it('takes any key as plain data', async () => {
      for (const hostile of HOSTILE_KEYS) {
        const k = key('1', hostile);
        const first = command(`for ${hostile.slice(0, 10)}`);
        assert.deepEqual(await given.store.claim(k, first, T0), { keyed: first, repeated: false });
        assert.deepEqual((await given.store.claim(k, command('other'), T0)).keyed, first);
      }
    });
  });
}
