import assert from 'node:assert/strict';
import megalodonModule, { type MegalodonInterface } from 'megalodon';
import { listeningService, type ListeningService } from './listening-service.ts';

/*
 * megalodon 9 (the newest line that runs on Node 20) speaks only v1 filters. Through axios it sends
 * JSON bodies, always both `phrase` and `context` on update, `expires_in` only when it is non-zero, and
 * a JSON `{}` body on DELETE. Failures are axios errors carrying the HTTP response.
 */

/*
 * megalodon is CommonJS with `exports.default = generator`. Imported as ESM by Node, the default import is
 * the whole module.exports; but mocha require()s spec files, and tsx then compiles this file to CommonJS
 * with Babel-style interop, where the default import is `exports.default` itself. Take it either way.
 */
const generator: typeof megalodonModule.default = typeof megalodonModule === 'function' ? megalodonModule : megalodonModule.default;

const ID = /^[0-9]+$/;

async function newClient(service: ListeningService, scopes?: readonly string[]): Promise<MegalodonInterface> {
  return generator('mastodon', service.url, (await service.account(scopes)).token);
}

/** What megalodon rejects with: an Error, with the HTTP answer when there was one. */
interface HttpFailure extends Error {
  response?: { status: number; data: unknown };
}

async function rejectsWithStatus(call: Promise<unknown>, status: number, error?: string): Promise<void> {
  await assert.rejects(call, (thrown: HttpFailure) => {
    assert.equal(thrown.response?.status, status, `expected an HTTP ${status}, got ${String(thrown)}`);
    if (error !== undefined) assert.deepEqual(thrown.response?.data, { error });
    return true;
  });
}

/** megalodon 9 has no v2 calls, so a second keyword goes into the caller's only filter over plain HTTP. */
async function addKeywordThroughV2(service: ListeningService, token: string, keyword: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const [filter] = (await (await fetch(`${service.url}/api/v2/filters`, { headers })).json()) as { id: string }[];
  const added = await fetch(`${service.url}/api/v2/filters/${filter!.id}/keywords`, { method: 'POST', headers, body: JSON.stringify({ keyword }) });
  assert.equal(added.status, 200);
}

const secondsFromNow = (timestamp: string | null) => (Date.parse(timestamp ?? '') - Date.now()) / 1000;

describe('megalodon client: v1 filters', () => {
  const service = listeningService();
  let alice: MegalodonInterface;
  let bob: MegalodonInterface;
  beforeEach(async () => {
    [alice, bob] = [await newClient(service), await newClient(service)];
  });

  it('creates a filter with every option and answers with the v1 record', async () => {
    const { status, data } = await alice.createFilter('magic', ['home', 'public'], { irreversible: true, whole_word: false, expires_in: '3600' });
    assert.equal(status, 200);
    assert.match(data.id, ID);
    assert.deepEqual(
      { ...data, expires_at: null },
      { id: data.id, phrase: 'magic', context: ['home', 'public'], whole_word: false, expires_at: null, irreversible: true },
    );
    assert.ok(Math.abs(secondsFromNow(data.expires_at) - 3600) < 60, `expires_at ${data.expires_at}`);
  });

  it('defaults whole_word to true, irreversible to false and expiry to none', async () => {
    const { data } = await alice.createFilter('plain', ['thread']);
    assert.deepEqual([data.whole_word, data.irreversible, data.expires_at], [true, false, null]);
  });

  it("lists and fetches only the caller's records", async () => {
    const first = (await alice.createFilter('one', ['home'])).data;
    const second = (await alice.createFilter('two', ['notifications'], { whole_word: false })).data;
    await bob.createFilter('other', ['home']);
    const listed = await alice.getFilters();
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.data, [first, second]);
    assert.deepEqual((await alice.getFilter(second.id)).data, second);
  });

  it('updates phrase, context, irreversible and whole_word', async () => {
    const { data: record } = await alice.createFilter('magic', ['home']);
    const { status, data } = await alice.updateFilter(record.id, 'updated', ['home', 'account'], { irreversible: true, whole_word: false });
    assert.equal(status, 200);
    assert.deepEqual(data, { id: record.id, phrase: 'updated', context: ['home', 'account'], whole_word: false, expires_at: null, irreversible: true });
    assert.deepEqual((await alice.getFilter(record.id)).data, data);
  });

  it('refuses to change a filter whose settings several keywords share', async () => {
    const owner = await service.account();
    const client = generator('mastodon', service.url, owner.token);
    const { data: record } = await client.createFilter('magic', ['home']);
    await addKeywordThroughV2(service, owner.token, 'trick');
    await rejectsWithStatus(
      client.updateFilter(record.id, 'magic', ['public']),
      422,
      'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
    );
    assert.deepEqual((await client.getFilter(record.id)).data, record);
  });

  it('deletes a record with its JSON {} body, after which it is gone', async () => {
    const { data: record } = await alice.createFilter('magic', ['home']);
    const deleted = await alice.deleteFilter(record.id);
    assert.deepEqual([deleted.status, deleted.data], [200, {}]);
    await rejectsWithStatus(alice.getFilter(record.id), 404, 'Record not found');
    assert.deepEqual((await alice.getFilters()).data, []);
  });

  it("gives another account's token a 404 and leaves the record alone", async () => {
    const { data: record } = await alice.createFilter('mine', ['home']);
    await rejectsWithStatus(bob.getFilter(record.id), 404, 'Record not found');
    await rejectsWithStatus(bob.updateFilter(record.id, 'theirs', ['home']), 404, 'Record not found');
    await rejectsWithStatus(bob.deleteFilter(record.id), 404, 'Record not found');
    assert.deepEqual((await alice.getFilter(record.id)).data, record);
  });

  it('answers 401 to an unknown token, 403 to a read-only one and 422 to a blank phrase', async () => {
    await rejectsWithStatus(generator('mastodon', service.url, 'not-a-token').getFilters(), 401, 'The access token is invalid');
    const reader = await newClient(service, ['read:filters']);
    await rejectsWithStatus(reader.createFilter('x', ['home']), 403, 'This action is outside the authorized scopes');
    await rejectsWithStatus(alice.createFilter('', ['home']), 422);
  });
});
