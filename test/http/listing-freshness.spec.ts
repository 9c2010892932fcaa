import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/**
 * What the fast GET path (the listing kept as bytes, the token looked up once and cached) must never
 * cost, with the defaults on: a write shows in the next listing of its writer, and a revoked token is
 * refused on the next request.
 */
describe('listings stay fresh with the defaults on (rate limits counted)', () => {
  let service: RunningService;

  before(async () => {
    const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'on' });
    service = await startService({ config, logger: silentLogger });
  });
  after(() => service?.close());

  const owner = async () => {
    const account = await service.stores.accounts.createAccount(`u${Math.floor(Math.random() * 1e9)}`);
    return service.stores.accounts.createToken(account.id, ['read', 'write']);
  };

  it('lists a create, an update and a delete in the very next GET, after listings that were kept', async () => {
    const api = filtersApi(service.url, await owner());
    const titles = async () => ((await api.get('/api/v2/filters')).body as { title: string }[]).map((f) => f.title);
    assert.deepEqual(await titles(), []);
    assert.deepEqual(await titles(), []);
    const created = await api.post('/api/v2/filters', newFilter('first'));
    assert.equal(created.status, 200);
    assert.deepEqual(await titles(), ['first']);
    assert.equal((await api.put(`/api/v2/filters/${created.body.id}`, { title: 'renamed' })).status, 200);
    assert.deepEqual(await titles(), ['renamed']);
    const keywords = async () => ((await api.get('/api/v1/filters')).body as { phrase: string }[]).map((k) => k.phrase);
    assert.deepEqual(await keywords(), ['magic']);
    assert.equal((await api.delete(`/api/v2/filters/${created.body.id}`)).status, 200);
    assert.deepEqual(await titles(), []);
    assert.deepEqual(await keywords(), []);
  });

  it('refuses a token revoked after it was used, on the next request', async () => {
    const token = await owner();
    const api = filtersApi(service.url, token);
    assert.equal((await api.get('/api/v2/filters')).status, 200);
    assert.equal((await api.get('/api/v2/filters')).status, 200);
    await service.stores.accounts.revokeToken(token);
    const refused = await api.get('/api/v2/filters');
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, { error: 'The access token was revoked' });
  });
});
