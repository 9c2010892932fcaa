import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/**
 * With the defaults (rate limits on), the throttle and the authentication both need the request's token:
 * it is looked up once and shared (http/token-holder.ts), and what each layer makes of it is unchanged.
 */
describe('one token lookup per request, rate limits on', () => {
  let service: RunningService;
  const log = capturedLogger('info');
  let lookups: string[] = [];

  before(async () => {
    const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'on' });
    service = await startService({ config, logger: log.logger });
    // Counts the store's lookups; the store is the one the app and the throttle were given.
    const accounts = service.stores.accounts;
    const authenticate = accounts.authenticate.bind(accounts);
    accounts.authenticate = (token: string) => {
      lookups.push(token);
      return authenticate(token);
    };
  });
  after(() => service?.close());
  beforeEach(() => {
    lookups = [];
  });

  const owner = async () => {
    const account = await service.stores.accounts.createAccount(`u${Math.floor(Math.random() * 1e9)}`);
    return { accountId: account.id, token: await service.stores.accounts.createToken(account.id, ['read', 'write']) };
  };

  it('looks a header token up once, still sends the rate-limit headers and logs who asked', async () => {
    const { accountId, token } = await owner();
    const answer = await fetch(`${service.url}/api/v2/filters`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    await answer.text();
    assert.deepEqual(lookups, [token]);
    assert.equal(answer.headers.get('x-ratelimit-limit'), '300');
    assert.equal(answer.headers.get('x-ratelimit-remaining'), '299');
    assert.match(answer.headers.get('x-ratelimit-reset')!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const line = await log.waitFor((l) => l.msg === 'request' && l.accountId === accountId);
    assert.equal(typeof line.tokenId, 'string');
    assert.equal(line.status, 200);
    assert.equal(line.route, '/api/v2/filters');
  });

  it('looks up a token given only in a form body, which the throttle never reads, in the authentication', async () => {
    const { token } = await owner();
    const body = new URLSearchParams({ access_token: token, title: 'form', 'context[]': 'home' });
    const answer = await fetch(`${service.url}/api/v2/filters`, { method: 'POST', body });
    assert.equal(answer.status, 200, await answer.text());
    assert.deepEqual(lookups, [token]);
  });

  it('answers a header token and a different query token by the header, each looked up once at most', async () => {
    const [one, two] = [await owner(), await owner()];
    const answer = await fetch(`${service.url}/api/v2/filters?access_token=${two.token}`, { headers: { authorization: `Bearer ${one.token}` } });
    assert.equal(answer.status, 200);
    await answer.text();
    assert.deepEqual(lookups, [one.token]);
  });

  it('refuses a revoked token as revoked after a single lookup', async () => {
    const { token } = await owner();
    await service.stores.accounts.revokeToken(token);
    const answer = await fetch(`${service.url}/api/v2/filters`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 401);
    assert.deepEqual(await answer.json(), { error: 'The access token was revoked' });
    assert.deepEqual(lookups, [token]);
  });
});
