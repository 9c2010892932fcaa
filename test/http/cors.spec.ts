import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { chromiumOrSkip } from '../support/browser.ts';
import { TestServer, type TestAccount } from '../support/test-server.ts';

const ELK = 'https://elk.zone';
// Mastodon's config/initializers/cors.rb for /api/*, as rack-cors writes it.
const MASTODON_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, PUT, DELETE, GET, PATCH, OPTIONS',
  'access-control-expose-headers': 'Link, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id',
  'access-control-max-age': '7200',
};

const corsHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));
const varies = (headers: Headers) => (headers.get('vary') ?? '').split(/\s*,\s*/);

function preflight(server: TestServer, path: string, origin: string, method: string, requestHeaders?: string) {
  return server.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}) },
  });
}

describe('CORS on /api/* (as Mastodon)', () => {
  let server: TestServer;
  let alice: TestAccount;
  before(async () => {
    server = await TestServer.start();
    alice = await server.account();
  });
  after(() => server.close());

  it('answers a preflight from any origin with 200, no body, Mastodon’s headers and the requested headers allowed', async () => {
    const answer = await preflight(server, '/api/v2/filters', ELK, 'POST', 'authorization,content-type,idempotency-key');
    assert.equal(answer.status, 200);
    assert.equal(answer.body, '');
    assert.deepEqual(corsHeaders(answer.headers), { ...MASTODON_HEADERS, 'access-control-allow-headers': 'authorization,content-type,idempotency-key' });
  });

  it('adds the headers to answers for an Origin, errors included, and every /api answer varies by Origin', async () => {
    const listed = await server.request('GET', '/api/v2/filters', { token: alice.token, headers: { origin: ELK } });
    assert.equal(listed.status, 200);
    assert.deepEqual(corsHeaders(listed.headers), MASTODON_HEADERS);
    assert.deepEqual(varies(listed.headers), ['Authorization', 'Origin']);
    const refused = await server.request('GET', '/api/v1/filters', { token: 'nope', headers: { origin: 'http://localhost:5173' } });
    assert.equal(refused.status, 401);
    assert.deepEqual(corsHeaders(refused.headers), MASTODON_HEADERS);
    const sameOrigin = await server.request('GET', '/api/v2/filters', { token: alice.token });
    assert.deepEqual(corsHeaders(sameOrigin.headers), {});
    assert.ok(varies(sameOrigin.headers).includes('Origin'));
  });

  it('gives no CORS headers to a method Mastodon does not list, nor anywhere outside /api', async () => {
    assert.deepEqual(corsHeaders((await preflight(server, '/api/v2/filters', ELK, 'HEAD')).headers), {});
    for (const path of ['/webmail/', '/webmail/?_task=login&_action=login', '/health', '/metrics']) {
      const pre = await preflight(server, path, ELK, 'POST', 'x-roundcube-request');
      assert.deepEqual(corsHeaders(pre.headers), {}, path);
      const get = await server.request('GET', path, { headers: { origin: ELK } });
      assert.deepEqual(corsHeaders(get.headers), {}, path);
      assert.ok(!varies(get.headers).includes('Origin'), path);
    }
  });

  describe('with CORS_ORIGINS', () => {
    let restricted: TestServer;
    before(async () => {
      restricted = await TestServer.start({ CORS_ORIGINS: 'https://elk.zone, https://phanpy.social' });
    });
    after(() => restricted.close());

    it('allows only the listed origins, naming the origin instead of *', async () => {
      const allowed = await preflight(restricted, '/api/v2/filters', 'https://phanpy.social', 'PUT', 'authorization');
      assert.deepEqual(corsHeaders(allowed.headers), {
        ...MASTODON_HEADERS,
        'access-control-allow-origin': 'https://phanpy.social',
        'access-control-allow-headers': 'authorization',
      });
      const other = await preflight(restricted, '/api/v2/filters', 'https://evil.example', 'PUT', 'authorization');
      assert.equal(other.status, 200);
      assert.deepEqual(corsHeaders(other.headers), {});
      const get = await restricted.request('GET', '/api/v2/filters', { headers: { origin: 'https://evil.example' } });
      assert.deepEqual(corsHeaders(get.headers), {});
      assert.ok(varies(get.headers).includes('Origin'));
    });

    it('refuses origins that are not scheme, host and port', () => {
      for (const value of ['elk.zone', 'https://elk.zone/path', 'ftp://x.org', '*, https://elk.zone']) {
        assert.throws(() => loadConfig({ CORS_ORIGINS: value }), /CORS_ORIGINS must be \* or origins/, value);
      }
      assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://Elk.zone http://localhost:5173' }).corsOrigins, ['https://elk.zone', 'http://localhost:5173']);
      assert.equal(loadConfig({}).corsOrigins, '*');
    });
  });

  describe('in Chromium, from a page on another origin', function () {
    this.timeout(60_000);
    let browser: Browser;
    let page: Server;

    before(async function () {
      browser = await chromiumOrSkip(this);
      page = createServer((_request, response) => response.end('<!DOCTYPE html><title>client</title>')).listen(0, '127.0.0.1');
      await once(page, 'listening');
    });
    after(async () => {
      await browser?.close();
      page?.close();
    });

    it('lets a browser client create and list filters with its token, and read X-Request-Id', async () => {
      const tab = await (await browser.newContext()).newPage();
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      const result = await tab.evaluate(
        async ({ api, token }) => {
          const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
          const created = await fetch(`${api}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify({ title: 'from elk', context: ['home'] }) });
          const listed = await fetch(`${api}/api/v2/filters`, { headers });
          return {
            created: created.status,
            titles: ((await listed.json()) as { title: string }[]).map((f) => f.title),
            requestId: listed.headers.get('x-request-id'),
          };
        },
        { api: server.url, token: alice.token },
      );
      assert.equal(result.created, 200);
      assert.deepEqual(result.titles, ['from elk']);
      assert.match(result.requestId ?? '', /^[0-9a-f-]{36}$/);
    });
  });
});
