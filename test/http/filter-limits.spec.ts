import assert from 'node:assert/strict';
import { FILTER_LIMITS } from '../../src/commands/filter/filter-limits.ts';
import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import { filterStream, type FilterEvent } from '../../src/events/filter-events.ts';
import { newId } from '../../src/shared/ids.ts';
import { serverWithTwoAccounts, type TestAccount } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const { keywordsPerFilter, keywordCharactersPerFilter, keywordCharactersPerAccount, statusesPerFilter, filtersPerAccount } = FILTER_LIMITS;
const now = new Date().toISOString();

describe('Per-filter and per-account limits over HTTP (422 Validation failed)', () => {
  const given = serverWithTwoAccounts();

  const post = (who: TestAccount, path: string, json: unknown) => given.server.request('POST', path, { token: who.token, json });
  const keywordsOf = (count: number, length: number) => Array.from({ length: count }, (_, i) => ({ keyword: `${i}`.padEnd(length, 'k') }));
  const createFilter = async (who: TestAccount, keywords: { keyword: string }[]) => {
    const response = await post(who, '/api/v2/filters', { title: 'limits', context: ['home'], keywords_attributes: keywords });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; keywords: { id: string }[] };
  };
  const refused = (response: { status: number; body: unknown }, message: string) => {
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, { error: `Validation failed: ${message}` });
  };

  /** Events appended straight to the log, as a request would have, then waited for in the read models. */
  const appendCommits = async (who: TestAccount, commits: { filterId: string; events: FilterEvent[] }[]) => {
    const store = given.server.service.stores.events;
    await Promise.all(
      commits.map(({ filterId, events }) =>
        store.appendToStream(
          filterStream(filterId),
          events.map((e, i) => {
            const metadata = eventMetadata({
              accountId: who.id,
              requestId: 'limits',
              apiVersion: 'cli',
              commitIndex: i,
              commitSize: events.length,
              schemaVersion: FILTER_EVENT_VERSIONS[e.type],
            });
            return { type: e.type, data: e.data, metadata };
          }),
          'no_stream',
        ),
      ),
    );
  };
  const filterCreated = (who: TestAccount, filterId: string): FilterEvent => ({
    type: 'FilterCreated',
    data: { filterId, accountId: who.id, title: 'bulk', context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
  });

  it(`refuses a keyword beyond ${keywordsPerFilter} per filter on the keyword endpoint and through keywords_attributes`, async () => {
    const filter = await createFilter(given.alice, keywordsOf(keywordsPerFilter, 1));
    const message = `Keywords are too many (maximum is ${keywordsPerFilter} per filter)`;
    refused(await post(given.alice, `/api/v2/filters/${filter.id}/keywords`, { keyword: 'one-more' }), message);
    const put = await given.server.request('PUT', `/api/v2/filters/${filter.id}`, {
      token: given.alice.token,
      json: { keywords_attributes: [{ keyword: 'one-more' }] },
    });
    refused(put, message);
    // Swapping one keyword for another keeps the count: allowed.
    const swapped = await given.server.request('PUT', `/api/v2/filters/${filter.id}`, {
      token: given.alice.token,
      json: { keywords_attributes: [{ id: filter.keywords[0]!.id, _destroy: true }, { keyword: 'one-more' }] },
    });
    assert.equal(swapped.status, 200);
    assert.equal(swapped.body.keywords.length, keywordsPerFilter);
  });

  it(`refuses more than ${keywordCharactersPerFilter} keyword characters in one filter`, async () => {
    const filter = await createFilter(given.alice, keywordsOf(keywordCharactersPerFilter / 500, 500));
    refused(
      await post(given.alice, `/api/v2/filters/${filter.id}/keywords`, { keyword: 'x' }),
      `Keywords are too long together (maximum is ${keywordCharactersPerFilter} characters per filter)`,
    );
    refused(
      await post(given.alice, '/api/v2/filters', { title: 't', context: ['home'], keywords_attributes: keywordsOf(keywordCharactersPerFilter / 500 + 1, 500) }),
      `Keywords are too long together (maximum is ${keywordCharactersPerFilter} characters per filter)`,
    );
  });

  it(`refuses keywords beyond ${keywordCharactersPerAccount} characters per account on v1 and v2, and not for another account`, async () => {
    const perFilter = keywordsOf(keywordCharactersPerFilter / 500, 500);
    for (let i = 0; i < keywordCharactersPerAccount / keywordCharactersPerFilter; i += 1) await createFilter(given.alice, perFilter);
    const message = `Keywords are too long together (maximum is ${keywordCharactersPerAccount} characters per account)`;
    refused(await post(given.alice, '/api/v2/filters', { title: 't', context: ['home'], keywords_attributes: [{ keyword: 'x' }] }), message);
    refused(await post(given.alice, '/api/v1/filters', { phrase: 'x', context: ['home'] }), message);
    // A filter without keywords adds no characters; bob's account is his own.
    assert.equal((await post(given.alice, '/api/v2/filters', { title: 'bare', context: ['home'] })).status, 200);
    assert.equal((await post(given.bob, '/api/v1/filters', { phrase: 'x', context: ['home'] })).status, 200);
  });

  it(`refuses a filter beyond ${filtersPerAccount} per account on v1 and v2, also to concurrent creates`, async () => {
    const commits = Array.from({ length: filtersPerAccount - 3 }, () => {
      const filterId = newId();
      return { filterId, events: [filterCreated(given.alice, filterId)] };
    });
    await appendCommits(given.alice, commits);
    const count = async () => (await given.server.request('GET', '/api/v2/filters', { token: given.alice.token })).body.length as number;
    await waitUntil(async () => (await count()) === filtersPerAccount - 3, 'the read models to hold every filter');
    // Twenty creates at once for the last three places: each is judged after the ones before it.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? post(given.alice, '/api/v2/filters', { title: `t${i}`, context: ['home'] })
          : post(given.alice, '/api/v1/filters', { phrase: `p${i}`, context: ['home'] }),
      ),
    );
    const message = `Filters are too many (maximum is ${filtersPerAccount} per account)`;
    const accepted = answers.filter((a) => a.status === 200);
    assert.equal(accepted.length, 3, JSON.stringify(answers.map((a) => a.body)));
    for (const answer of answers.filter((a) => a.status !== 200)) refused(answer, message);
    refused(await post(given.alice, '/api/v2/filters', { title: 'one more', context: ['home'] }), message);
    assert.equal(await count(), filtersPerAccount);
    assert.equal((await post(given.bob, '/api/v2/filters', { title: 'his own', context: ['home'] })).status, 200);
  });

  it(`refuses a status beyond ${statusesPerFilter} per filter`, async () => {
    const filterId = newId();
    const statuses: FilterEvent[] = Array.from({ length: statusesPerFilter - 1 }, (_, i) => ({
      type: 'StatusFiltered',
      data: { filterId, filterStatusId: newId(), statusId: String(1_000_000 + i), filteredAt: now },
    }));
    await appendCommits(given.alice, [{ filterId, events: [filterCreated(given.alice, filterId), ...statuses] }]);
    const path = `/api/v2/filters/${filterId}/statuses`;
    assert.equal((await post(given.alice, path, { status_id: '42' })).status, 200);
    refused(await post(given.alice, path, { status_id: '43' }), `Statuses are too many (maximum is ${statusesPerFilter} per filter)`);
    const listed = await given.server.request('GET', path, { token: given.alice.token });
    assert.equal(listed.body.length, statusesPerFilter);
  });
});
