import assert from 'node:assert/strict';
import { TestServer } from '../support/test-server.ts';

describe('webmail mounted in the service', () => {
  let server: TestServer;

  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());

  it('serves the login page under /webmail/ beside the JSON API', async () => {
    const page = await server.request('GET', '/webmail/');
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    assert.match(page.body, /_token/);
    const redirect = await fetch(`${server.url}/webmail`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const alice = await server.account();
    assert.equal((await server.request('GET', '/api/v2/filters', { token: alice.token })).status, 200);
    assert.equal((await server.request('GET', '/api/v2/nothing-here', { token: alice.token })).status, 404);
  });
});
