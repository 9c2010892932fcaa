import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { newId } from '../../src/shared/ids.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer, type TestAccount } from '../support/test-server.ts';

const natsUrl = process.env.NATS_URL;

/** Requests and replies on `<subject>.<account_id>`, JSON both ways. */
function requester(client: () => NatsConnection, subject: string) {
  return async (accountId: string, body: unknown): Promise<any> => {
    const data = typeof body === 'string' ? new TextEncoder().encode(body) : new TextEncoder().encode(JSON.stringify(body));
    const reply = await client().request(`${subject}.${accountId}`, data, { timeout: 10_000 });
    return JSON.parse(reply.string());
  };
}

const toot = (id: string, content: string) => ({ id, content });

describe('filter matching over NATS request-reply', function () {
  // A subject of its own: other test runs on this NATS server answer on theirs.
  const subject = `test.filters.match.${newId()}`;
  let server: TestServer;
  let client: NatsConnection;
  let alice: TestAccount;
  let bob: TestAccount;
  const request = requester(() => client, subject);

  before(async function () {
    if (!natsUrl) {
      console.log('    (skipped: set NATS_URL, e.g. nats://127.0.0.1:4222, to run the NATS matching tests)');
      this.skip();
    }
    server = await TestServer.start({ NATS_URL: natsUrl, NATS_MATCH_SUBJECT: subject });
    client = await connect({ servers: natsUrl });
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(async () => {
    alice = await server.account();
    bob = await server.account();
  });

  const createFilter = async (who: TestAccount, json: unknown) => (await server.request('POST', '/api/v2/filters', { token: who.token, json })).body;

  it("answers with the account's FilterResults for each status", async () => {
    const filter = await createFilter(alice, { title: 'cw', context: ['home'], filter_action: 'warn', keywords_attributes: [{ keyword: 'politics' }] });
    const reply = await request(alice.id, { statuses: [toot('11', '<p>No POLITICS today</p>'), toot('12', 'sports')], context: 'home' });
    assert.deepEqual(reply, {
      results: {
        '11': [
          {
            filter: { id: filter.id, title: 'cw', context: ['home'], expires_at: null, filter_action: 'warn' },
            keyword_matches: ['POLITICS'],
            status_matches: null,
          },
        ],
        '12': [],
      },
    });
  });

  it('answers [] for every status of an account without filters', async () => {
    assert.deepEqual(await request(alice.id, { statuses: [toot('1', 'anything')] }), { results: { '1': [] } });
  });

  it('applies only the account of the subject', async () => {
    await createFilter(bob, { title: 'bob', context: ['home'], keywords_attributes: [{ keyword: 'mine' }] });
    assert.deepEqual(await request(alice.id, { statuses: [toot('1', 'mine')] }), { results: { '1': [] } });
    assert.equal((await request(bob.id, { statuses: [toot('1', 'mine')] })).results['1'].length, 1);
  });

  it("uses a write in the next request after the write's response", async () => {
    const statuses = [toot('1', 'a spoiler')];
    assert.deepEqual((await request(alice.id, { statuses })).results['1'], []);
    const filter = await createFilter(alice, { title: 't', context: ['home'], keywords_attributes: [{ keyword: 'spoiler' }] });
    assert.equal((await request(alice.id, { statuses })).results['1'].length, 1);
    await server.request('DELETE', `/api/v2/filters/${filter.id}`, { token: alice.token });
    assert.deepEqual((await request(alice.id, { statuses })).results['1'], []);
  });

  it('answers a bad request with {"error": ...}', async () => {
    assert.deepEqual(await request(alice.id, 'not json'), { error: 'the request is not JSON' });
    assert.deepEqual(await request(alice.id, { statuses: [{ id: 'x1' }] }), { error: 'statuses[0].id is invalid' });
    assert.deepEqual(await request(alice.id, [1, 2]), { error: 'body is invalid' });
    assert.deepEqual(await request('alice', { statuses: [] }), { error: 'the subject must end in an account id (digits)' });
  });
});

describe('filter matching over NATS from another API process', function () {
  const subject = `test.filters.match.${newId()}`;
  let writer: TestServer;
  let responder: NodeProcess;
  let client: NatsConnection;

  before(async function () {
    if (!natsUrl) {
      console.log('    (skipped: set NATS_URL, e.g. nats://127.0.0.1:4222, to run the NATS matching tests)');
      this.skip();
    }
    const dataDir = scratchDir();
    // The writer answers HTTP and projects; it has no NATS, so every match request goes to the other process.
    writer = await TestServer.start({ DATA_DIR: dataDir });
    responder = NodeProcess.start('src/main.ts', { DATA_DIR: dataDir, RATE_LIMITS: 'off', NATS_URL: natsUrl, NATS_MATCH_SUBJECT: subject, PROJECTOR: 'off' });
    await responder.url();
    client = await connect({ servers: natsUrl });
  });
  after(async () => {
    await client?.close();
    await responder?.kill('SIGTERM');
    await writer?.close();
  });

  it('sees each write made through the other process in the next request', async () => {
    const request = requester(() => client, subject);
    const alice = await writer.account();
    const statuses = [toot('1', '<p>Season finale tonight</p>')];
    assert.deepEqual((await request(alice.id, { statuses })).results['1'], [], 'compiled and cached without filters');
    const created = await writer.request('POST', '/api/v2/filters', {
      token: alice.token,
      json: { title: 'tv', context: ['home'], keywords_attributes: [{ keyword: 'finale' }] },
    });
    assert.deepEqual((await request(alice.id, { statuses })).results['1'][0].keyword_matches, ['finale']);
    const keywordId = created.body.keywords[0].id;
    await writer.request('PUT', `/api/v2/filters/keywords/${keywordId}`, { token: alice.token, json: { keyword: 'season' } });
    assert.deepEqual((await request(alice.id, { statuses })).results['1'][0].keyword_matches, ['Season']);
  });
});
