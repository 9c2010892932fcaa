import assert from 'node:assert/strict';
import { filterStream } from '../../src/events/filter-events.ts';
import { newId } from '../../src/shared/ids.ts';
import { serverWithTwoAccounts } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('A log written with whole keyword lists (KeywordsUpdated version 1), served by this release', () => {
  const given = serverWithTwoAccounts();

  it('shows its keywords, takes edits as changes, and folds both alike in v1 and v2', async () => {
    const store = given.server.service.stores.events;
    const filterId = newId();
    const [magic, tv] = [
      { id: newId(), keyword: 'magic', wholeWord: true },
      { id: newId(), keyword: 'tv', wholeWord: false },
    ];
    const now = new Date().toISOString();
    const metadata = (commitIndex: number) => ({ accountId: given.alice.id, requestId: 'old', apiVersion: 'v2', tokenId: null, commitIndex, commitSize: 2 });
    // As an older release stored them: no schemaVersion at all, and the whole list after the change.
    await store.appendToStream(
      filterStream(filterId),
      [
        {
          type: 'FilterCreated',
          data: { filterId, accountId: given.alice.id, title: 'old', context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
          metadata: metadata(0),
        },
        { type: 'KeywordsUpdated', data: { filterId, keywords: [magic, tv], updatedAt: now }, metadata: metadata(1) },
      ],
      'no_stream',
    );
    const get = async () => (await given.server.request('GET', `/api/v2/filters/${filterId}`, { token: given.alice.token })).body;
    await waitUntil(async () => (await get()).keywords?.length === 2, 'the old filter in the read models');
    assert.deepEqual(
      (await get()).keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]),
      [
        ['magic', true],
        ['tv', false],
      ],
    );

    const put = await given.server.request('PUT', `/api/v2/filters/${filterId}`, {
      token: given.alice.token,
      json: { keywords_attributes: [{ id: tv.id, keyword: 'radio' }, { keyword: 'new' }] },
    });
    assert.equal(put.status, 200);
    assert.equal((await given.server.request('DELETE', `/api/v1/filters/${magic.id}`, { token: given.alice.token })).status, 200);

    const expected = [
      ['radio', false],
      ['new', true],
    ];
    assert.deepEqual(
      (await get()).keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]),
      expected,
    );
    const v1 = (await given.server.request('GET', '/api/v1/filters', { token: given.alice.token })).body as { phrase: string; whole_word: boolean }[];
    assert.deepEqual(
      v1.map((r) => [r.phrase, r.whole_word]),
      expected,
    );
    // The new events carry only their change.
    const stored = (await store.readStream(filterStream(filterId))).slice(2);
    assert.deepEqual(
      stored.map((e) => [e.type, (e.metadata as { schemaVersion: number }).schemaVersion, Object.keys(e.data as object).sort()]),
      [
        ['KeywordsUpdated', 2, ['added', 'changed', 'filterId', 'removed', 'replacesAll', 'updatedAt']],
        ['KeywordsUpdated', 2, ['added', 'changed', 'filterId', 'removed', 'replacesAll', 'updatedAt']],
      ],
    );
    assert.deepEqual((stored[1]!.data as { removed: string[] }).removed, [magic.id]);
  });
});
