import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { API_ADAPTERS, PROJECTOR_ADAPTERS, type Adapter, type AdapterTable, type OpenContext } from '../../src/composition-root.ts';
import { loadConfig } from '../../src/config.ts';
import { startProjectorService } from '../../src/projector-service.ts';
import { startService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

interface Ledger {
  readonly opened: string[];
  readonly closed: string[];
}

/**
 * The real adapters, each open and close written down; the `failAt`-th open (1-based) fails instead of
 * opening, and the adapter named `failingClose` fails to close after it closed.
 */
function recorded<A extends object>(table: AdapterTable<A>, ledger: Ledger, failAt: number, refusal: Error, failingClose?: string): AdapterTable<A> {
  const entries = Object.entries(table as unknown as Record<string, Adapter<unknown>>).map(([name, adapter]) => [
    name,
    {
      open: async (context: OpenContext) => {
        if (ledger.opened.length + 1 === failAt) throw refusal;
        const opened = await adapter.open(context);
        ledger.opened.push(name);
        return opened;
      },
      close: async (opened: unknown) => {
        ledger.closed.push(name);
        await adapter.close(opened);
        if (name === failingClose) throw new Error(`${name} would not close`);
      },
    },
  ]);
  return Object.fromEntries(entries) as AdapterTable<A>;
}

const apiConfig = () => loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'on' });
const apiNames = Object.keys(API_ADAPTERS);
const projectorNames = Object.keys(PROJECTOR_ADAPTERS);

describe('the composition root (composition-root.ts): what opened is closed, whatever fails', () => {
  it('opens every adapter of the API process, rate-limit counters and chain heads included', () => {
    assert.deepEqual(apiNames, ['accounts', 'events', 'reads', 'idempotency', 'notifier', 'webmailStores', 'oauth', 'rateLimits', 'chainHeads']);
  });

  for (const [n] of apiNames.entries()) {
    it(`API: when open ${n + 1} of ${apiNames.length} (${apiNames[n]}) fails, the ${n} before it are closed once each and its error is the start's`, async () => {
      const ledger: Ledger = { opened: [], closed: [] };
      const refusal = new Error(`refused-${randomUUID()}`);
      await assert.rejects(
        startService({ config: apiConfig(), logger: silentLogger, adapters: recorded(API_ADAPTERS, ledger, n + 1, refusal) }),
        (error) => error === refusal,
      );
      assert.deepEqual(ledger.opened, apiNames.slice(0, n));
      assert.deepEqual(ledger.closed, [...ledger.opened].reverse());
    });
  }

  it('API: a start past every adapter that then fails (the port taken) closes all of them once', async () => {
    const ledger: Ledger = { opened: [], closed: [] };
    const first = await startService({ config: apiConfig(), logger: silentLogger });
    try {
      const taken = loadConfig({ DATA_DIR: scratchDir(), PORT: new URL(first.url).port, HOST: '127.0.0.1' });
      await assert.rejects(startService({ config: taken, logger: silentLogger, adapters: recorded(API_ADAPTERS, ledger, 0, new Error('unused')) }), {
        code: 'EADDRINUSE',
      });
    } finally {
      await first.close();
    }
    assert.deepEqual(ledger.opened, apiNames);
    assert.deepEqual(ledger.closed, [...apiNames].reverse());
  });

  it('API: a shutdown whose one close fails still closes every other adapter once, then fails with that close', async () => {
    const ledger: Ledger = { opened: [], closed: [] };
    const adapters = recorded(API_ADAPTERS, ledger, 0, new Error('unused'), 'oauth');
    const service = await startService({ config: apiConfig(), logger: silentLogger, adapters });
    await assert.rejects(service.close(), { message: 'oauth would not close' });
    await assert.rejects(service.close(), { message: 'oauth would not close' });
    assert.deepEqual(ledger.closed, [...apiNames].reverse());
  });

  for (const [n] of projectorNames.entries()) {
    it(`projector: when open ${n + 1} of ${projectorNames.length} (${projectorNames[n]}) fails, the ${n} before it are closed once each`, async () => {
      const ledger: Ledger = { opened: [], closed: [] };
      const refusal = new Error(`refused-${randomUUID()}`);
      const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1' });
      await assert.rejects(startProjectorService(config, silentLogger, recorded(PROJECTOR_ADAPTERS, ledger, n + 1, refusal)), (error) => error === refusal);
      assert.deepEqual(ledger.opened, projectorNames.slice(0, n));
      assert.deepEqual(ledger.closed, [...ledger.opened].reverse());
    });
  }

  it('projector: a shutdown closes its adapters once each, the last opened first', async () => {
    const ledger: Ledger = { opened: [], closed: [] };
    const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1' });
    const running = await startProjectorService(config, silentLogger, recorded(PROJECTOR_ADAPTERS, ledger, 0, new Error('unused')));
    await running.close();
    assert.deepEqual(ledger.closed, [...projectorNames].reverse());
  });
});
