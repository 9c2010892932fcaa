import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import { HOSTILE_KEYS, type LocationFixture } from '../support/store-locations.ts';
import { RATE_WINDOW_MS, webmailStoresSubject } from './webmail-stores-fixture.ts';

const WINDOW = RATE_WINDOW_MS;

/**
 * The LoginRateLimit port, as Roundcube's login_rate_limit (rcube_user::failed_login / is_locked):
 * failures count in a window that starts at the first one; `limit` failures in a window younger than
 * the window length lock the account (the right password too) until it is over. And, beyond Roundcube's
 * single database: every connection to the same store counts into, and refuses by, the same windows.
 */
export function loginRateLimitContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`LoginRateLimit contract: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);
    const clock = subject.clock;
    const open = async (limit = 3) => (await subject.open(limit)).rateLimit;

    it('locks an account after the limit of failures within the window, and only until it ends', async () => {
      const limit = await open();
      const [a, b] = [newId(), newId()];
      const start = clock.now;
      for (let i = 0; i < 3; i += 1) {
        assert.equal(await limit.isLocked(a), false, `before failure ${i + 1}`);
        await limit.recordFailure(a);
        clock.now += 1000;
      }
      assert.equal(await limit.isLocked(a), true);
      assert.equal(await limit.isLocked(b), false, 'another account is not touched');
      clock.now = start + WINDOW - 1;
      assert.equal(await limit.isLocked(a), true, 'still inside the window that began at the first failure');
      clock.now = start + WINDOW;
      assert.equal(await limit.isLocked(a), false, 'the window is over');
      await limit.recordFailure(a);
      assert.equal(await limit.isLocked(a), false, 'a failure after the window starts a new one, counting 1');
      await limit.recordFailure(a);
      await limit.recordFailure(a);
      assert.equal(await limit.isLocked(a), true, 'three in the new window lock again');
    });

    it('is off at 0', async () => {
      const limit = await open(0);
      const a = newId();
      for (let i = 0; i < 5; i += 1) await limit.recordFailure(a);
      assert.equal(await limit.isLocked(a), false);
    });

    it('forgets an account after a successful login', async () => {
      const limit = await open();
      const a = newId();
      await limit.recordFailure(a);
      await limit.recordFailure(a);
      await limit.forget(a);
      await limit.recordFailure(a);
      await limit.recordFailure(a);
      assert.equal(await limit.isLocked(a), false, 'the count started again at the login');
    });

    it('shares its windows between connections: failures on one lock the other, and a reopened store still refuses', async () => {
      const [first, second] = [await open(), await open()];
      const a = newId();
      await first.recordFailure(a);
      await second.recordFailure(a);
      await first.recordFailure(a);
      assert.equal(await second.isLocked(a), true);
      await subject.closeAll();
      assert.equal(await (await open()).isLocked(a), true, 'a restart forgives nothing');
    });

    it('loses no failure when connections count at once', async () => {
      const [first, second] = [await open(10), await open(11)];
      const a = newId();
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? first : second).recordFailure(a)));
      assert.equal(await first.isLocked(a), true, 'all 10 failures counted');
      assert.equal(await second.isLocked(a), false, 'and no more than 10');
    });

    it('keeps hostile account ids as plain keys, each its own window', async () => {
      const limit = await open();
      for (const key of HOSTILE_KEYS) {
        for (let i = 0; i < 3; i += 1) await limit.recordFailure(key);
        assert.equal(await limit.isLocked(key), true, `locked: ${key.slice(0, 20)}`);
      }
      const innocent = newId();
      assert.equal(await limit.isLocked(innocent), false, 'nothing leaked onto other accounts');
      assert.equal(await limit.isLocked('a'), false, 'a dotted key is not a path');
      await limit.forget('$where');
      assert.equal(await limit.isLocked('$where'), false);
      assert.equal(await limit.isLocked('__proto__'), true, 'forgetting one key forgets only it');
      const asObject = { $ne: null } as unknown as string;
      assert.equal(await limit.isLocked(asObject), false, 'an operator object is no key');
    });
  });
}
