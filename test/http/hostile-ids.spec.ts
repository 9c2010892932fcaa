import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const OPERATOR = encodeURIComponent('{"$gt":""}');

describe('Ids that are query operators in disguise', () => {
  let service: RunningService;
  let api: ReturnType<typeof filtersApi>;
  let filterId: string;

  before(async () => {
    const dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    api = filtersApi(service.url, (await newOwner(dir)).token);
    filterId = (await api.post('/api/v2/filters', newFilter('real'))).body.id;
  });

  after(async () => {
    await service.close();
  });

  it('answers 404 for operator-shaped ids in paths', async () => {
    for (const path of [
      `/api/v2/filters/${OPERATOR}`,
      `/api/v1/filters/${OPERATOR}`,
      `/api/v2/filters/statuses/${OPERATOR}`,
      `/api/v2/filters/keywords/${OPERATOR}`,
    ]) {
      assert.equal((await api.get(path)).status, 404, path);
    }
  });

  it('refuses operator-shaped ids in bodies without touching the filter', async () => {
    const answer = await api.put(`/api/v2/filters/${filterId}`, { keywords_attributes: [{ id: { $gt: '' }, keyword: 'x' }] });
    assert.ok([404, 422].includes(answer.status), `status ${answer.status}`);
    const filter = (await api.get(`/api/v2/filters/${filterId}`)).body;
    assert.deepEqual(
      filter.keywords.map((k: { keyword: string }) => k.keyword),
      ['magic'],
    );
  });
});
