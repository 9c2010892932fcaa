import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRestAPIClient } from 'masto';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { NginxProxy, nginxMissing } from '../support/nginx-proxy.ts';
import { TestServer } from '../support/test-server.ts';

/** A request exactly as written (fetch would resolve dot segments and merge nothing), with its answer. */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the nginx recipe: the filters API to the service, the rest to Mastodon', function () {
  this.timeout(120_000);
  let db: MastodonTestDatabase;
  let server: TestServer;
  let mastodon: Server;
  let proxy: NginxProxy;
  /** What reached the stand-in for Mastodon, as nginx sent it. */
  const reachedMastodon: string[] = [];

  before(async function () {
    const missing = nginxMissing();
    if (missing) {
      process.stdout.write(`      skipped: ${missing}\n`);
      this.skip();
    }
    db = await MastodonTestDatabase.create();
    server = await TestServer.start({ MASTODON_DATABASE_URL: db.url, TRUST_PROXY: 'on' });
    mastodon = createServer((req, res) => {
      reachedMastodon.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"answered_by":"mastodon"}');
    });
    await new Promise<void>((resolve) => mastodon.listen(0, '127.0.0.1', resolve));
    proxy = await NginxProxy.start(Number(new URL(server.url).port), (mastodon.address() as AddressInfo).port);
  });
  after(async () => {
    await proxy?.close();
    await new Promise((resolve) => (mastodon ? mastodon.close(resolve) : resolve(undefined)));
    await server?.close();
    await db?.drop();
  });
  beforeEach(() => reachedMastodon.splice(0));

  it('masto.js, pointed at the proxy with a Mastodon token, manages v2 and v1 filters on the service', async () => {
    const user = await db.user();
    const client = createRestAPIClient({ url: proxy.url, accessToken: await db.token(user, 'read write') });
    const created = await client.v2.filters.create({ title: 'Spoilers', context: ['home'], keywordsAttributes: [{ keyword: 'finale' }] });
    assert.deepEqual(
      (await client.v2.filters.list()).map((f) => f.id),
      [created.id],
    );
    const updated = await client.v2.filters.$select(created.id).update({ title: 'TV spoilers', filterAction: 'hide' });
    assert.deepEqual([updated.title, updated.filterAction], ['TV spoilers', 'hide']);
    const record = await client.v1.filters.create({ phrase: 'election', context: ['public'], wholeWord: false });
    assert.deepEqual((await client.v1.filters.list()).map((r) => r.phrase).sort(), ['election', 'finale']);
    const changed = await client.v1.filters.$select(record.id).update({ phrase: 'elections', context: ['public', 'thread'] });
    assert.deepEqual(changed.context, ['public', 'thread']);
    await client.v1.filters.$select(record.id).remove();
    await client.v2.filters.$select(created.id).remove();
    // v1's delete removes the keyword (its record); the v2 filter it made stays, as in Mastodon.
    assert.deepEqual(
      (await client.v2.filters.list()).map((f) => [f.title, f.keywords.length]),
      [['elections', 0]],
    );
    // The writes are the service's: its log holds them, and Mastodon saw none of it.
    const [first] = await server.service.stores.events.readAll({ after: null, limit: 1 });
    assert.equal((first?.metadata as { accountId: string }).accountId, user.accountId);
    assert.deepEqual(reachedMastodon, []);
  });

  it('POST /api/v2/filters/match reaches the service; every other path reaches Mastodon as it was sent', async () => {
    const token = await db.token(await db.user(), 'read');
    const match = await fetch(`${proxy.url}/api/v2/filters/match`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', context: 'home' }),
    });
    assert.notEqual(match.status, 502);
    assert.doesNotMatch(await match.text(), /answered_by/);
    for (const path of ['/api/v1/accounts/verify_credentials', '/api/v1/timelines/home?limit=2', '/oauth/token', '/api/v1/filters_other', '/']) {
      const answer = await rawGet(proxy.port, path);
      assert.deepEqual([answer.status, answer.body], [200, '{"answered_by":"mastodon"}'], path);
    }
    assert.deepEqual(reachedMastodon, ['/api/v1/accounts/verify_credentials', '/api/v1/timelines/home?limit=2', '/oauth/token', '/api/v1/filters_other', '/']);
  });

  it('spellings an attacker tries go where Mastodon would route them, and never past the service’s authentication', async () => {
    // Normalised by nginx (decoded, slashes merged, dot segments resolved) to no filters path: Mastodon's
    // router, which matches the path as sent and case-sensitively, routes none of them to its filters either.
    const toMastodon = [
      '/api/v2/filters/../x',
      '/api/v2/filters/%2e%2e/x',
      '/api/v1/filters/..%2F..%2Fapi/v1/accounts',
      '/API/V2/FILTERS',
      '/Api/v1/Filters',
      '/api/v2/filtersx',
      '/api/v2/filters.json',
    ];
    for (const path of toMastodon) {
      reachedMastodon.splice(0);
      const answer = await rawGet(proxy.port, path);
      assert.equal(answer.body, '{"answered_by":"mastodon"}', path);
      assert.deepEqual(reachedMastodon, [path], path);
    }
    // Normalised to a filters path: the service's, which answers none of them without a valid token.
    const toService = [
      '//api/v2/filters',
      '/api/v2//filters',
      '/x/../api/v2/filters',
      '/api/v2/filters%2F1',
      '/api/v2/%66ilters',
      '/api/v1/filters/',
      '/api/v2/filters/keywords/1',
    ];
    reachedMastodon.splice(0);
    for (const path of toService) {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
        const answer = await rawGet(proxy.port, path, headers);
        assert.ok([401, 404].includes(answer.status), `${path}: ${answer.status} ${answer.body}`);
        assert.ok(JSON.parse(answer.body).error, `${path}: a JSON error`);
      }
    }
    assert.deepEqual(reachedMastodon, []);
  });
});
