import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { logChainHeads } from '../../src/events/chain-head-log.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { startService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('The chain head in the service log', function () {
  this.timeout(60_000);

  it('is logged at start as verify prints it, so a log archive anchors the log', async () => {
    const dir = scratchDir();
    const store = SqliteEventStore.inDataDir(dir);
    await store.appendToStream(filterStream(randomUUID()), [{ type: 'FilterCreated', data: { n: 1 }, metadata: {} }], 'no_stream');
    await store.appendToStream(filterStream(randomUUID()), [{ type: 'FilterCreated', data: { n: 2 }, metadata: {} }], 'no_stream');
    await store.close();
    const captured = capturedLogger('info');
    const service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: captured.logger });
    let logged: unknown;
    try {
      logged = (await captured.waitFor((line) => line.event === 'chain_head')).head;
    } finally {
      await service.close();
    }
    const verified = await runCli(['verify'], { DATA_DIR: dir });
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(String(logged), /^2:[0-9a-f]{64}$/);
    assert.match(verified.stdout, new RegExp(`head ${String(logged)}$`, 'm'));
  });

  it('is logged again at every interval', async () => {
    const captured = capturedLogger('info');
    const head = { position: 7n, hash: 'a'.repeat(64) };
    const stop = logChainHeads(async () => head, captured.logger, 1);
    await captured.waitFor(() => captured.lines.filter((line) => line.event === 'chain_head').length >= 3);
    stop();
    assert.ok(captured.lines.filter((line) => line.event === 'chain_head').every((line) => line.head === `7:${'a'.repeat(64)}`));
  });
});
