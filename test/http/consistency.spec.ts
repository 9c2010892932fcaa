import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { TestServer } from '../support/test-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const serviceOn = (dataDir: string) =>
  startService({ config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });

describe('consistency and durability', () => {
  it('loses no update when two servers on one data directory change one filter at once', async () => {
    const dataDir = scratchDir();
    const [one, two] = [await serviceOn(dataDir), await serviceOn(dataDir)];
    try {
      const account = await one.stores.accounts.createAccount(`race${process.pid}`);
      const token = await one.stores.accounts.createToken(account.id, ['read', 'write']);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${one.url}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify({ title: 'race', context: ['home'] }) });
      const { id } = (await created.json()) as { id: string };
      const adds = Array.from({ length: 24 }, (_, i) =>
        fetch(`${(i % 2 ? one : two).url}/api/v2/filters/${id}/keywords`, { method: 'POST', headers, body: JSON.stringify({ keyword: `k${i}` }) }),
      );
      const statuses = await Promise.all(adds.map(async (r) => (await r).status));
      assert.ok(
        statuses.every((s) => s === 200 || s === 409),
        statuses.join(','),
      );
      const accepted = statuses.filter((s) => s === 200).length;
      for (const service of [one, two]) {
        const filter = (await (await fetch(`${service.url}/api/v2/filters/${id}`, { headers })).json()) as { keywords: unknown[] };
        assert.equal(filter.keywords.length, accepted, 'every acknowledged keyword is there, on both servers');
      }
      assert.ok(accepted >= 20, `only ${accepted} of 24 got through the retries`);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('keeps acknowledged filters across a restart', async () => {
    const dataDir = scratchDir();
    const first = await serviceOn(dataDir);
    const account = await first.stores.accounts.createAccount(`durable${process.pid}`);
    const token = await first.stores.accounts.createToken(account.id, ['read', 'write']);
    const headers = { authorization: `Bearer ${token}` };
    const created = await fetch(`${first.url}/api/v1/filters`, { method: 'POST', headers, body: new URLSearchParams('phrase=kept&context[]=home') });
    assert.equal(created.status, 200);
    await first.close();
    const second = await serviceOn(dataDir);
    try {
      const list = (await (await fetch(`${second.url}/api/v1/filters`, { headers })).json()) as { phrase: string }[];
      assert.deepEqual(
        list.map((r) => r.phrase),
        ['kept'],
      );
    } finally {
      await second.close();
    }
  });

  it('shows a write to every following read at once', async () => {
    const server = await TestServer.start();
    try {
      const alice = await server.account();
      for (let i = 0; i < 10; i += 1) {
        const { id } = (
          await server.request('POST', '/api/v2/filters', { token: alice.token, form: `title=t${i}&context[]=home&keywords_attributes[][keyword]=k${i}` })
        ).body;
        assert.equal((await server.request('GET', `/api/v2/filters/${id}`, { token: alice.token })).status, 200);
        assert.equal((await server.request('GET', '/api/v1/filters', { token: alice.token })).body.length, i + 1);
      }
    } finally {
      await server.close();
    }
  });
});
