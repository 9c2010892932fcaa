import assert from 'node:assert/strict';
import Koa from 'koa';
import { listen } from '../../src/http/listen.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('The listening address: the socket as bound, beside the URL a local client uses', function () {
  // Only ends a hang: a cold `node --import tsx` start on a loaded 2-core machine.
  this.timeout(120_000);

  it('binds the wildcard address and says so, while the URL points at the loopback address', async () => {
    const { url, address, stop } = await listen(new Koa(), 0, '0.0.0.0');
    try {
      const port = new URL(url).port;
      assert.equal(address, `0.0.0.0:${port}`);
      assert.equal(url, `http://127.0.0.1:${port}`);
    } finally {
      await stop();
    }
  });

  it('writes an IPv6 address in brackets, and a named one as bound', async () => {
    const six = await listen(new Koa(), 0, '::1').catch(() => null);
    if (six === null) console.log('      (skipped the IPv6 case: this host cannot bind ::1)');
    else {
      assert.match(six.address, /^\[::1\]:\d+$/);
      await six.stop();
    }
    const four = await listen(new Koa(), 0, '127.0.0.1');
    assert.match(four.address, /^127\.0\.0\.1:\d+$/);
    await four.stop();
  });

  it('the service’s listening line with HOST=0.0.0.0 names 0.0.0.0 as its address', async () => {
    const child = NodeProcess.start('src/main.ts', { DATA_DIR: scratchDir(), HOST: '0.0.0.0', PROJECTOR: 'off', RATE_LIMITS: 'off' });
    try {
      const line = await child.waitForLog((l) => l.event === 'listening');
      const port = new URL(String(line.url)).port;
      assert.equal(line.address, `0.0.0.0:${port}`);
    } finally {
      await child.kill('SIGTERM');
    }
  });
});
