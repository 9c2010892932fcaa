import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('request log levels', () => {
  let service: RunningService;
  const log = capturedLogger('debug');

  before(async () => {
    service = await startService({ config: loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: log.logger });
  });
  after(() => service?.close());

  it('logs /health and /metrics at debug, and every other request at info', async () => {
    for (const path of ['/health', '/metrics', '/api/v2/filters']) await (await fetch(`${service.url}${path}`)).text();
    const levels = (path: string) => log.lines.filter((line) => line.msg === 'request' && line.path === path).map((line) => line.level);
    assert.deepEqual(levels('/health'), [20]);
    assert.deepEqual(levels('/metrics'), [20]);
    assert.deepEqual(levels('/api/v2/filters'), [30]);
  });
});
