import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

/** A port nothing listens on: bound once by the OS for us, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('EVENTSTORE_URL pointing at a closed port', function () {
  this.timeout(60_000);
  let url: string;
  let dir: string;
  let service: RunningService;
  const { logger, lines } = memoryLogger();

  before(async () => {
    url = `esdb://127.0.0.1:${await closedPort()}?tls=false`;
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', EVENTSTORE_URL: url }), logger });
  });
  after(() => service?.close());

  it('starts; /health says event_store_unreachable and why projection stands still; /metrics answers', async () => {
    const response = await fetch(`${service.url}/health`);
    assert.equal(response.status, 503);
    const body = (await response.json()) as { problems: { reason: string; stage?: string }[]; eventStore: string; readStore: string };
    assert.equal(body.eventStore, 'down');
    assert.equal(body.readStore, 'up');
    assert.deepEqual(
      body.problems.map((p) => p.reason),
      ['event_store_unreachable', 'projection_failing'],
    );
    assert.equal(body.problems[1]!.stage, 'read');
    const metrics = await fetch(`${service.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^store_up\{store="events"\} 0$/m);
  });

  it('answers writes with a JSON 503 and reads from the read models as usual', async () => {
    const owner = await newOwner(dir);
    const api = filtersApi(service.url, owner.token);
    const write = await fetch(`${service.url}/api/v2/filters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(newFilter('not now')),
    });
    assert.equal(write.status, 503);
    assert.equal(write.headers.get('retry-after'), '5');
    assert.deepEqual(await write.json(), { error: 'Service unavailable: the event store cannot be reached' });
    assert.deepEqual(await api.get('/api/v2/filters'), { status: 200, body: [] });
  });

  it("logs the projector's failure once with its stack, not at every retry", async () => {
    await waitUntil(() => (service.projector!.failure?.failures ?? 0) >= 4, 'four failed reads of the log');
    const withStack = lines.filter((line) => typeof (line.err as { stack?: unknown } | undefined)?.stack === 'string');
    assert.deepEqual(
      withStack.map((l) => l.msg),
      ['projection step failed; retrying'],
    );
    assert.equal(withStack[0]!.stage, 'read');
  });

  it('ends `cli events` with one error line and exit code 1', async () => {
    const result = await runCli(['events'], { DATA_DIR: dir, EVENTSTORE_URL: url });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^error: EventStoreDB: 14 UNAVAILABLE: [^\n]*\n$/);
  });
});
