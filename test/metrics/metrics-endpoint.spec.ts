import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** The value of one series in Prometheus text format, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  let service: RunningService;

  before(async () => {
    const dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    const owner = await newOwner(dir);
    const api = filtersApi(service.url, owner.token);
    const created = await api.post('/api/v2/filters', newFilter('counted'));
    await api.get(`/api/v2/filters/${created.body.id}`);
    await api.get('/api/v2/filters/999');
    await fetch(`${service.url}/no/such/path`);
  });

  after(async () => {
    await service.close();
  });

  it('serves Prometheus text with requests by route pattern and status, appends and projector position', async () => {
    const response = await fetch(`${service.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    assert.ok((sample(text, 'http_requests_total{method="POST",route="/api/v2/filters",status="200"}') ?? 0) >= 1);
    assert.ok((sample(text, 'http_requests_total{method="GET",route="/api/v2/filters/:id",status="200"}') ?? 0) >= 1);
    assert.ok((sample(text, 'http_requests_total{method="GET",route="/api/v2/filters/:id",status="404"}') ?? 0) >= 1);
    assert.ok((sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}') ?? 0) >= 1);
    assert.match(text, /^http_request_duration_seconds_bucket\{le="0.1",method="POST",route="\/api\/v2\/filters",status="200"\} \d+$/m);
    assert.ok((sample(text, 'events_appended_total{type="FilterCreated"}') ?? 0) >= 1);
    // The owner's account fact, the account usage ledger's growth, then FilterCreated.
    assert.equal(sample(text, 'projector_position'), 3);
    assert.equal(sample(text, 'projector_lag_seconds'), 0);
    assert.equal(sample(text, 'projector_leader'), 1);
    assert.notEqual(sample(text, 'nats_publish_failures_total'), undefined);
    assert.doesNotMatch(text, /route="[^"]*\/[0-9]/, 'raw paths never become labels');
  });

  it('returns the request id it was given and stores it in the event metadata', async () => {
    const response = await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'audit-trail-1' } });
    assert.equal(response.headers.get('x-request-id'), 'audit-trail-1');
    const [event] = await service.stores.events.readAll({ after: null, limit: 1 });
    assert.equal(typeof (event!.metadata as { requestId?: unknown }).requestId, 'string');
  });
});
