import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { BatchedCounter } from '../../src/rate-limits/batched-counter.ts';
import { openRateLimitStore } from '../../src/stores.ts';
import type { RateLimitStore } from '../../src/rate-limits/rate-limit-store.ts';
import { eachStoreLocation, type LocationFixture } from '../support/store-locations.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The RateLimitStore contract: what the throttles rely on, for every adapter. */
function rateLimitStoreContract(name: string, fixture: () => (LocationFixture & { redis?: boolean }) | null): void {
  describe(`RateLimitStore contract: ${name}`, function () {
    this.timeout(30_000);
    let open: (() => Promise<RateLimitStore>) | null = null;
    before(function () {
      const location = fixture();
      if (!location) return this.skip();
      open = () =>
        openRateLimitStore({
          ...location.fresh(),
          ...(location.redis ? { redisUrl: REDIS_URL, redisNamespace: `cf-test-${randomBytes(6).toString('hex')}` } : {}),
        });
    });

    const one = (key: string, expiresAtMs: number) => [{ key, by: 1, expiresAtMs }];

    it('counts each key on its own, from 1, a batch adding each key its own number', async () => {
      const store = await open!();
      try {
        const ends = Date.now() + 60_000;
        assert.deepEqual(
          [...(await store.incrementAll(one('a', ends))), ...(await store.incrementAll(one('a', ends))), ...(await store.incrementAll(one('b', ends)))],
          [1, 2, 1],
        );
        const batch = [
          { key: 'a', by: 3, expiresAtMs: ends },
          { key: 'b', by: 2, expiresAtMs: ends },
          { key: 'new', by: 1, expiresAtMs: ends },
        ];
        assert.deepEqual(await store.incrementAll(batch), [5, 3, 1]);
      } finally {
        await store.close();
      }
    });

    it('counts every concurrent call exactly once, alone and through the batching in front of it', async () => {
      const store = await open!();
      try {
        const ends = Date.now() + 60_000;
        const counts = (await Promise.all(Array.from({ length: 20 }, () => store.incrementAll(one('c', ends))))).map(([count]) => count!);
        assert.deepEqual(
          counts.sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        // A generous deadline: this checks the arithmetic of the batches, not how fast a loaded machine is.
        const counter = new BatchedCounter(store, 10_000);
        const batched = await Promise.all(Array.from({ length: 30 }, (_, i) => counter.increment(i % 3 === 0 ? 'd' : 'c', ends)));
        assert.deepEqual(
          batched.filter((_, i) => i % 3 === 0).sort((x, y) => x - y),
          Array.from({ length: 10 }, (_, i) => i + 1),
        );
        assert.deepEqual(
          batched.filter((_, i) => i % 3 !== 0).sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 21),
        );
      } finally {
        await store.close();
      }
    });

    it('keeps counts for another connection to the same place (another process, a restart)', async () => {
      const location = fixture()!.fresh();
      const redis = fixture()!.redis ? { redisUrl: REDIS_URL, redisNamespace: `cf-test-${randomBytes(6).toString('hex')}` } : {};
      const first = await openRateLimitStore({ ...location, ...redis });
      await first.incrementAll(one('k', Date.now() + 60_000));
      await first.close();
      const second = await openRateLimitStore({ ...location, ...redis });
      try {
        assert.deepEqual(await second.incrementAll(one('k', Date.now() + 60_000)), [2]);
      } finally {
        await second.close();
      }
    });
  });
}

describe('Rate-limit store adapters (SQLite, MongoDB stand-in and server, Redis)', () => {
  eachStoreLocation(rateLimitStoreContract);
  rateLimitStoreContract('Redis', () => ({ redis: true, fresh: () => ({ dataDir: scratchDir() }) }));
});
