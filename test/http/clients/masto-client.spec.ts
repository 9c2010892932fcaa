import assert from 'node:assert/strict';
import { createRestAPIClient, MastoHttpError, type mastodon } from 'masto';
import { listeningService, type ListeningService } from './listening-service.ts';

/*
 * masto.js 7 sends every body here as JSON with snake_cased keys (`keywords_attributes`, `whole_word`,
 * `status_id`; `_destroy` is kept as is), arrays as JSON arrays, and no body at all on remove. It reads
 * answers with camelCased keys, and turns any non-2xx JSON answer into a MastoHttpError.
 */
const ID = /^[0-9]+$/;

const clientFor = (service: ListeningService, token: string) => createRestAPIClient({ url: service.url, accessToken: token });

async function newClient(service: ListeningService, scopes?: readonly string[]): Promise<mastodon.rest.Client> {
  return clientFor(service, (await service.account(scopes)).token);
}

/** `call` may be a masto Paginator, which is only a thenable. */
async function rejectsWithStatus(call: PromiseLike<unknown>, statusCode: number, message?: string): Promise<void> {
  await assert.rejects(Promise.resolve(call), (error: unknown) => {
    assert.ok(error instanceof MastoHttpError, `expected a MastoHttpError, got ${String(error)}`);
    assert.equal(error.statusCode, statusCode);
    if (message !== undefined) assert.equal(error.message, message);
    return true;
  });
}

const secondsFromNow = (timestamp: string | null | undefined) => (Date.parse(timestamp ?? '') - Date.now()) / 1000;

describe('masto.js client: v2 filters', () => {
  const service = listeningService();
  let alice: mastodon.rest.Client;
  let bob: mastodon.rest.Client;
  beforeEach(async () => {
    [alice, bob] = [await newClient(service), await newClient(service)];
  });

  const createMagic = () =>
    alice.v2.filters.create({
      title: 'magic',
      context: ['home', 'public'],
      filterAction: 'hide',
      keywordsAttributes: [{ keyword: 'magic' }, { keyword: 'trick', wholeWord: false }],
    });

  it('creates a filter with nested keywords and answers with the whole entity', async () => {
    const filter = await createMagic();
    assert.match(filter.id, ID);
    assert.equal(filter.title, 'magic');
    assert.deepEqual(filter.context, ['home', 'public']);
    assert.equal(filter.filterAction, 'hide');
    assert.equal(filter.expiresAt, null);
    assert.deepEqual(filter.statuses, []);
    assert.deepEqual(
      filter.keywords.map(({ keyword, wholeWord }) => ({ keyword, wholeWord })),
      [
        { keyword: 'magic', wholeWord: true },
        { keyword: 'trick', wholeWord: false },
      ],
    );
    for (const keyword of filter.keywords) assert.match(keyword.id, ID);
  });

  it('defaults filter_action to warn and sets expiry from expiresIn', async () => {
    const filter = await alice.v2.filters.create({ title: 'soon', context: ['thread'], expiresIn: 3600 });
    assert.equal(filter.filterAction, 'warn');
    assert.deepEqual(filter.keywords, []);
    assert.ok(Math.abs(secondsFromNow(filter.expiresAt) - 3600) < 60, `expires_at ${filter.expiresAt}`);
  });

  it("lists and fetches only the caller's filters", async () => {
    const filter = await createMagic();
    await bob.v2.filters.create({ title: 'other', context: ['home'] });
    assert.deepEqual(
      (await alice.v2.filters.list()).map((f) => f.id),
      [filter.id],
    );
    assert.deepEqual(await alice.v2.filters.$select(filter.id).fetch(), filter);
  });

  it('updates title and context, and adds, renames and destroys keywords in one request', async () => {
    const filter = await createMagic();
    const [magic, trick] = filter.keywords;
    const updated = await alice.v2.filters.$select(filter.id).update({
      title: 'renamed',
      context: ['notifications'],
      keywordsAttributes: [{ id: magic!.id, _destroy: true }, { id: trick!.id, keyword: 'illusion', wholeWord: true }, { keyword: 'prestige' }],
    });
    assert.equal(updated.title, 'renamed');
    assert.deepEqual(updated.context, ['notifications']);
    assert.equal(updated.filterAction, 'hide');
    assert.deepEqual(
      updated.keywords.map(({ keyword, wholeWord }) => [keyword, wholeWord]),
      [
        ['illusion', true],
        ['prestige', true],
      ],
    );
    assert.equal(updated.keywords[0]!.id, trick!.id);
    assert.deepEqual(await alice.v2.filters.$select(filter.id).fetch(), updated);
  });

  it("reads the nulls masto's types allow in keywordsAttributes as Rails does", async () => {
    const filter = await createMagic();
    const rules = alice.v2.filters.$select(filter.id);
    const updated = await rules.update({
      keywordsAttributes: [
        { id: null, keyword: 'new', wholeWord: null },
        { id: null, keyword: null, wholeWord: null, _destroy: null },
      ],
    });
    assert.deepEqual(
      updated.keywords.map((k) => [k.keyword, k.wholeWord]),
      [
        ['magic', true],
        ['trick', false],
        ['new', true],
      ],
    );
    await rejectsWithStatus(rules.update({ keywordsAttributes: [{ id: filter.keywords[0]!.id, keyword: null }] }), 422);
  });

  it('clears the expiry when expiresIn is null', async () => {
    const filter = await alice.v2.filters.create({ title: 'soon', context: ['home'], expiresIn: 60 });
    assert.equal((await alice.v2.filters.$select(filter.id).update({ expiresIn: null })).expiresAt, null);
  });

  it('removes a filter, after which it is gone', async () => {
    const filter = await createMagic();
    assert.deepEqual(await alice.v2.filters.$select(filter.id).remove(), {});
    await rejectsWithStatus(alice.v2.filters.$select(filter.id).fetch(), 404, 'Record not found');
    assert.deepEqual(await alice.v2.filters.list(), []);
  });

  it('refuses invalid input with a 422 MastoHttpError', async () => {
    await rejectsWithStatus(alice.v2.filters.create({ title: 'bad', context: [] }), 422);
    await rejectsWithStatus(alice.v2.filters.create({ title: '', context: ['home'] }), 422);
  });

  it("gives another account's token a 404 for fetch, update and remove", async () => {
    const filter = await createMagic();
    const theirs = bob.v2.filters.$select(filter.id);
    await rejectsWithStatus(theirs.fetch(), 404, 'Record not found');
    await rejectsWithStatus(theirs.update({ title: 'stolen' }), 404, 'Record not found');
    await rejectsWithStatus(theirs.remove(), 404, 'Record not found');
    assert.equal((await alice.v2.filters.$select(filter.id).fetch()).title, 'magic');
  });

  it('answers 401 to an unknown token and 403 to a read-only one', async () => {
    await rejectsWithStatus(clientFor(service, 'not-a-token').v2.filters.list(), 401, 'The access token is invalid');
    const reader = await newClient(service, ['read:filters']);
    await rejectsWithStatus(reader.v2.filters.create({ title: 'x', context: ['home'] }), 403);
  });
});

describe('masto.js client: v2 filter keywords and statuses', () => {
  const service = listeningService();
  let alice: mastodon.rest.Client;
  let bob: mastodon.rest.Client;
  let filterId: string;
  beforeEach(async () => {
    [alice, bob] = [await newClient(service), await newClient(service)];
    filterId = (await alice.v2.filters.create({ title: 'rules', context: ['home'] })).id;
  });

  it('creates, lists, fetches, updates and removes keywords', async () => {
    const keywords = alice.v2.filters.$select(filterId).keywords;
    const plain = await keywords.create({ keyword: 'magic' });
    const partial = await keywords.create({ keyword: 'foo', wholeWord: false });
    assert.match(plain.id, ID);
    assert.deepEqual([plain.keyword, plain.wholeWord, partial.wholeWord], ['magic', true, false]);
    assert.deepEqual(await keywords.list(), [plain, partial]);
    assert.deepEqual(await alice.v2.filters.keywords.$select(partial.id).fetch(), partial);
    const updated = await alice.v2.filters.keywords.$select(partial.id).update({ keyword: 'bar', wholeWord: true });
    assert.deepEqual(updated, { id: partial.id, keyword: 'bar', wholeWord: true });
    assert.deepEqual(await alice.v2.filters.keywords.$select(plain.id).remove(), {});
    assert.deepEqual(await keywords.list(), [updated]);
    assert.deepEqual((await alice.v2.filters.$select(filterId).fetch()).keywords, [updated]);
  });

  it('creates, lists, fetches and removes status filters', async () => {
    const statuses = alice.v2.filters.$select(filterId).statuses;
    const status = await statuses.create({ statusId: '109031743575371913' });
    assert.match(status.id, ID);
    assert.equal(status.statusId, '109031743575371913');
    assert.deepEqual(await statuses.list(), [status]);
    assert.deepEqual(await alice.v2.filters.statuses.$select(status.id).fetch(), status);
    assert.deepEqual((await alice.v2.filters.$select(filterId).fetch()).statuses, [status]);
    assert.deepEqual(await alice.v2.filters.statuses.$select(status.id).remove(), {});
    assert.deepEqual(await statuses.list(), []);
    await rejectsWithStatus(alice.v2.filters.statuses.$select(status.id).fetch(), 404);
  });

  it("gives another account's token a 404 for keywords and statuses", async () => {
    const keyword = await alice.v2.filters.$select(filterId).keywords.create({ keyword: 'mine' });
    const status = await alice.v2.filters.$select(filterId).statuses.create({ statusId: '42' });
    const theirFilter = bob.v2.filters.$select(filterId);
    await rejectsWithStatus(theirFilter.keywords.list(), 404, 'Record not found');
    await rejectsWithStatus(theirFilter.keywords.create({ keyword: 'theirs' }), 404);
    await rejectsWithStatus(theirFilter.statuses.list(), 404);
    await rejectsWithStatus(theirFilter.statuses.create({ statusId: '43' }), 404);
    await rejectsWithStatus(bob.v2.filters.keywords.$select(keyword.id).fetch(), 404);
    await rejectsWithStatus(bob.v2.filters.keywords.$select(keyword.id).update({ keyword: 'x' }), 404);
    await rejectsWithStatus(bob.v2.filters.keywords.$select(keyword.id).remove(), 404);
    await rejectsWithStatus(bob.v2.filters.statuses.$select(status.id).fetch(), 404);
    await rejectsWithStatus(bob.v2.filters.statuses.$select(status.id).remove(), 404);
    const mine = await alice.v2.filters.$select(filterId).fetch();
    assert.deepEqual([mine.keywords, mine.statuses], [[keyword], [status]]);
  });
});

describe('masto.js client: v1 filters', () => {
  const service = listeningService();
  let alice: mastodon.rest.Client;
  let bob: mastodon.rest.Client;
  beforeEach(async () => {
    [alice, bob] = [await newClient(service), await newClient(service)];
  });

  it('creates a record per keyword and shows its filter in v2', async () => {
    const record = await alice.v1.filters.create({ phrase: 'magic', context: ['home'], irreversible: true, wholeWord: false });
    assert.match(record.id, ID);
    assert.deepEqual(record, { id: record.id, phrase: 'magic', context: ['home'], wholeWord: false, expiresAt: null, irreversible: true });
    const [filter] = await alice.v2.filters.list();
    assert.deepEqual([filter?.title, filter?.filterAction, filter?.keywords[0]?.id], ['magic', 'hide', record.id]);
  });

  it('defaults whole_word to true and irreversible to false', async () => {
    const record = await alice.v1.filters.create({ phrase: 'plain', context: ['public'] });
    assert.deepEqual([record.wholeWord, record.irreversible], [true, false]);
  });

  it('lists, fetches, updates and removes records', async () => {
    const record = await alice.v1.filters.create({ phrase: 'magic', context: ['home'], expiresIn: 600 });
    assert.deepEqual(await alice.v1.filters.list(), [record]);
    assert.deepEqual(await alice.v1.filters.$select(record.id).fetch(), record);
    const updated = await alice.v1.filters.$select(record.id).update({ phrase: 'updated', context: ['home', 'thread'], irreversible: true, wholeWord: false });
    assert.deepEqual(updated, { ...record, phrase: 'updated', context: ['home', 'thread'], irreversible: true, wholeWord: false });
    assert.deepEqual(await alice.v1.filters.$select(record.id).remove(), {});
    assert.deepEqual(await alice.v1.filters.list(), []);
    // v1 removes only the keyword; the emptied filter stays for v2.
    assert.deepEqual(
      (await alice.v2.filters.list()).map((f) => [f.title, f.keywords]),
      [['updated', []]],
    );
  });

  it("gives another account's token a 404 and leaves the record alone", async () => {
    const record = await alice.v1.filters.create({ phrase: 'mine', context: ['home'] });
    await rejectsWithStatus(bob.v1.filters.$select(record.id).fetch(), 404, 'Record not found');
    await rejectsWithStatus(bob.v1.filters.$select(record.id).update({ phrase: 'theirs', context: ['home'] }), 404);
    await rejectsWithStatus(bob.v1.filters.$select(record.id).remove(), 404);
    assert.deepEqual(await bob.v1.filters.list(), []);
    assert.deepEqual(await alice.v1.filters.$select(record.id).fetch(), record);
  });
});
