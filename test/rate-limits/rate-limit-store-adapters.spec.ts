import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openRateLimitStore } from '../../src/rate-limits/open-rate-limit-store.ts';
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

    it('counts each key on its own, from 1, and every concurrent increment exactly once', async () => {
      const store = await open!();
      try {
        const ends = Date.now() + 60_000;
        assert.deepEqual([await store.increment('a', ends), await store.increment('a', ends), await store.increment('b', ends)], [1, 2, 1]);
        const counts = await Promise.all(Array.from({ length: 20 }, () => store.increment('c', ends)));
        assert.deepEqual(
          counts.sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      } finally {
        await store.close();
      }
    });

    it('keeps counts for another connection to the same place (another process, a restart)', async () => {
      const location = fixture()!.fresh();
      const redis = fixture()!.redis ? { redisUrl: REDIS_URL, redisNamespace: `cf-test-${randomBytes(6).toString('hex')}` } : {};
      const first = await openRateLimitStore({ ...location, ...redis });
      await first.increment('k', Date.now() + 60_000);
      await first.close();
      const second = await openRateLimitStore({ ...location, ...redis });
      try {
        assert.equal(await second.increment('k', Date.now() + 60_000), 2);
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
