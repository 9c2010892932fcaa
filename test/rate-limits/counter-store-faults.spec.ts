import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LoopStall } from '../support/loop-stall.ts';
import { OwnRedis, REDIS_SERVER } from '../support/redis-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { holdWriteLock } from '../support/sqlite-lock-holder.ts';
import { TestServer, type ApiResponse } from '../support/test-server.ts';

// The promise is 100 ms; the bound is wide for a loaded 2-core machine, yet far below what the fault
// cost before: SQLite's 5 s busy wait on the event loop, a frozen Redis waited for as long as it stayed frozen.
const ANSWER_BOUND_MS = 1000;
const STALL_BOUND_MS = 250;
const GIVE_UP_MS = 8000;

/** `request`'s answer and how long it took, or a failure once GIVE_UP_MS has passed (a request that hangs). */
async function timed(request: () => Promise<ApiResponse>): Promise<{ answer: ApiResponse; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${GIVE_UP_MS} ms`)), GIVE_UP_MS);
  });
  try {
    const answer = await Promise.race([request(), gaveUp]);
    return { answer, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * While the fault lasts: `request` is a JSON 503 naming `store` within the bound, `/health/live` answers
 * meanwhile, and the event loop never stands still longer than STALL_BOUND_MS.
 */
async function refusedQuickly(server: TestServer, request: () => Promise<ApiResponse>, store: string, what: string): Promise<void> {
  const stall = await LoopStall.start();
  const [refused, live] = await Promise.all([timed(request), timed(() => server.request('GET', '/health/live'))]);
  const again = await timed(request);
  const worstStall = await stall.stop();
  console.log(
    `      ${what}: ${refused.answer.status} in ${refused.ms.toFixed(0)} ms, again ${again.answer.status} in ${again.ms.toFixed(0)} ms; /health/live in ${live.ms.toFixed(0)} ms; worst loop stall ${worstStall.toFixed(1)} ms`,
  );
  for (const { answer } of [refused, again]) {
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body, { error: `Service unavailable: ${store} cannot be reached` });
    assert.equal(answer.headers.get('retry-after'), '5');
  }
  assert.ok(refused.ms < ANSWER_BOUND_MS && again.ms < ANSWER_BOUND_MS, `answered in ${refused.ms} and ${again.ms} ms`);
  assert.equal(live.answer.status, 200);
  assert.ok(live.ms < ANSWER_BOUND_MS, `/health/live answered in ${live.ms} ms`);
  assert.ok(worstStall < STALL_BOUND_MS, `the event loop stood still ${worstStall} ms`);
}

describe('a counter, OAuth or Idempotency-Key store that cannot answer is a quick 503, never a hang', function () {
  this.timeout(60_000);
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await TestServer.start(env);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  describe('a frozen Redis (REDIS_URL, kill -STOP)', () => {
    let redis: OwnRedis | null = null;
    before(async function () {
      if (!REDIS_SERVER) {
        console.log('      skipped: no redis-server binary (apt-get install redis-server)');
        this.skip();
      }
      redis = await OwnRedis.start();
    });
    after(async () => {
      redis?.thaw();
      await redis?.stop();
    });

    it('answers counted requests 503 within the bound while frozen, and counts again once it wakes', async () => {
      const server = await start({ RATE_LIMITS: 'on', REDIS_URL: redis!.url, REDIS_NAMESPACE: `frozen${process.pid}` });
      const { token } = await server.account();
      const list = () => server.request('GET', '/api/v2/filters', { token });
      // The per-token throttle (300) is the most limited one a user token counts in (Api::RateLimitHeaders).
      assert.equal((await list()).headers.get('x-ratelimit-remaining'), '299');
      redis!.freeze();
      try {
        await refusedQuickly(server, list, 'the rate-limit counters', 'frozen Redis');
      } finally {
        redis!.thaw();
      }
      // The refused requests' counts were sent before the deadline and land once Redis wakes: counted against the client.
      const after = await list();
      assert.equal(after.status, 200);
      assert.ok(Number(after.headers.get('x-ratelimit-remaining')) <= 298);
    });
  });

  describe('a SQLite file another process holds the write lock on', () => {
    it('rate-limits.sqlite: a counted request is 503 within the bound, and counted once the lock is gone', async () => {
      const dir = scratchDir();
      const server = await start({ RATE_LIMITS: 'on', DATA_DIR: dir });
      const { token } = await server.account();
      const list = () => server.request('GET', '/api/v2/filters', { token });
      const lock = await holdWriteLock(join(dir, 'rate-limits.sqlite'));
      try {
        await refusedQuickly(server, list, 'the rate-limit counters', 'locked rate-limits.sqlite');
      } finally {
        await lock.release();
      }
      const after = await list();
      assert.deepEqual([after.status, after.headers.get('x-ratelimit-remaining')], [200, '299']);
    });

    it('oauth.sqlite: registering an app is 503 within the bound, and works once the lock is gone', async () => {
      const dir = scratchDir();
      const server = await start({ DATA_DIR: dir });
      const register = () => server.request('POST', '/api/v1/apps', { json: { client_name: 'locked', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } });
      const lock = await holdWriteLock(join(dir, 'oauth.sqlite'));
      try {
        await refusedQuickly(server, register, 'the OAuth store', 'locked oauth.sqlite');
      } finally {
        await lock.release();
      }
      assert.equal((await register()).status, 200);
    });

    it('idempotency.sqlite: a keyed create is 503 within the bound, and made once the lock is gone', async () => {
      const dir = scratchDir();
      const server = await start({ DATA_DIR: dir });
      const { token } = await server.account();
      const create = () =>
        server.request('POST', '/api/v2/filters', {
          token,
          json: { title: 'locked', context: ['home'], keywords_attributes: [{ keyword: 'x' }] },
          headers: { 'Idempotency-Key': `locked-${process.pid}` },
        });
      const lock = await holdWriteLock(join(dir, 'idempotency.sqlite'));
      try {
        await refusedQuickly(server, create, 'the Idempotency-Key store', 'locked idempotency.sqlite');
      } finally {
        await lock.release();
      }
      const made = await create();
      assert.equal(made.status, 200);
      assert.equal((await server.request('GET', '/api/v2/filters', { token })).body.length, 1);
    });
  });
});
