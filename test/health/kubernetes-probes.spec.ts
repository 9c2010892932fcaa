import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

type Flow = string | { [key: string]: Flow };

/**
 * A strict reader for the one YAML shape the snippet uses: `key: value` lines whose values are flow
 * mappings (`{ a: { b: c }, d: 1 }`) or plain scalars. Anything else (a sequence, a quote, an anchor, a
 * second value for a key) is refused, so a snippet this cannot read is a failing test, not a skipped check.
 */
function readFlowYaml(text: string): Record<string, Flow> {
  const tokens = text.match(/[{},]|[^\s{},:]+:(?=\s)|[^\s{},]+/g) ?? [];
  let at = 0;
  const next = () => tokens[at++] ?? assert.fail('the snippet ends too soon');
  const key = (token: string) => (/^[A-Za-z]\w*:$/.test(token) ? token.slice(0, -1) : assert.fail(`expected a key, got ${token}`));
  const value = (): Flow => {
    const token = next();
    if (token !== '{') return /^[\w/.-]+$/.test(token) ? token : assert.fail(`not a plain scalar: ${token}`);
    const mapping: Record<string, Flow> = {};
    for (;;) {
      const name = key(next());
      assert.ok(!Object.hasOwn(mapping, name), `${name} twice`);
      mapping[name] = value();
      const separator = next();
      if (separator === '}') return mapping;
      assert.equal(separator, ',');
    }
  };
  const document: Record<string, Flow> = {};
  while (at < tokens.length) {
    const name = key(next());
    assert.ok(!Object.hasOwn(document, name), `${name} twice`);
    document[name] = value();
  }
  return document;
}

interface Probe {
  readonly httpGet: { readonly path: string; readonly port: string };
  readonly periodSeconds: string;
  readonly failureThreshold: string;
}

// docs/operations.md tells operators to paste this into a Pod spec: a wrong path or port restarts healthy pods.
describe("the Kubernetes probes in docs/operations.md's Health section", function () {
  this.timeout(60_000);
  const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const snippet = /## Health\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(page)?.[1];
  let service: RunningService | undefined;

  after(async () => {
    await service?.close();
  });

  it('is a liveness and a readiness probe, each an HTTP GET with a period and a failure threshold', () => {
    assert.ok(snippet, 'the Health section has a yaml block');
    const probes = readFlowYaml(snippet) as unknown as Record<string, Probe>;
    assert.deepEqual(Object.keys(probes).sort(), ['livenessProbe', 'readinessProbe']);
    for (const probe of Object.values(probes)) {
      assert.deepEqual(Object.keys(probe).sort(), ['failureThreshold', 'httpGet', 'periodSeconds']);
      assert.deepEqual(Object.keys(probe.httpGet).sort(), ['path', 'port']);
      assert.match(probe.periodSeconds, /^[1-9]\d*$/);
      assert.match(probe.failureThreshold, /^[1-9]\d*$/);
    }
    assert.equal(probes.livenessProbe!.httpGet.path, '/health/live');
    assert.equal(probes.readinessProbe!.httpGet.path, '/health/ready');
  });

  it('names the port the service listens on by default, and paths a started service answers 200 with JSON', async () => {
    const probes = readFlowYaml(snippet!) as unknown as Record<string, Probe>;
    for (const probe of Object.values(probes)) assert.equal(Number(probe.httpGet.port), loadConfig({}).port);

    const running = await startService({
      config: loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }),
      logger: silentLogger,
    });
    service = running;
    for (const probe of Object.values(probes)) {
      const response = await fetch(`${running.url}${probe.httpGet.path}`);
      assert.equal(response.status, 200, probe.httpGet.path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.ok(['live', 'ready'].includes(((await response.json()) as { status: string }).status));
    }
  });
});
