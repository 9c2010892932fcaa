import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startProjectorService, type RunningProjector } from '../../src/projector-service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { freshFilterRows } from '../support/mastodon-fresh-rows.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('Mastodon mode with the projector in a process of its own (PROJECTOR=off in the API)', function () {
  this.timeout(120_000);
  const dir = scratchDir();
  let db: MastodonTestDatabase;
  let api: TestServer;
  let projector: RunningProjector;

  before(async () => {
    db = await MastodonTestDatabase.create();
    api = await TestServer.start({ DATA_DIR: dir, MASTODON_DATABASE_URL: db.url, PROJECTOR: 'off' });
    projector = await startProjectorService(loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', MASTODON_DATABASE_URL: db.url }), silentLogger);
  });
  after(async () => {
    await api?.close();
    await projector?.close();
    await db?.drop();
  });

  it('the lease holder keeps Mastodon’s tables, and its /health says where they stand', async () => {
    const token = await db.token(await db.user());
    const created = await api.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'elsewhere', context: ['home'], keywords_attributes: [{ keyword: 'a' }] },
    });
    assert.equal(created.status, 200);
    await waitUntil(async () => (await freshFilterRows(db.url, created.body.id)).filter?.phrase === 'elsewhere', 'the row in custom_filters', 60_000);
    const health = (await (await fetch(`${projector.url}/health`)).json()) as { mastodonProjection?: { checkpoint: string | null; lagSeconds: number } };
    assert.equal(health.mastodonProjection?.lagSeconds, 0);
    assert.notEqual(health.mastodonProjection?.checkpoint, null);
  });
});
