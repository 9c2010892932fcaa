import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { filterStream } from '../../src/events/filter-events.ts';
import { serverWithTwoAccounts } from '../support/test-server.ts';

describe('events written through the API', () => {
  const given = serverWithTwoAccounts();
  const streamOf = (filterId: string) => given.server.service.stores.events.readStream(filterStream(filterId));

  it("record the request's X-Request-Id, the caller and each event's schema version in their metadata", async () => {
    const created = `create-${randomUUID()}`;
    const response = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      headers: { 'x-request-id': created },
      form: 'title=t&context[]=home&keywords_attributes[][keyword]=k',
    });
    assert.equal(response.headers.get('x-request-id'), created);
    const renamed = `rename-${randomUUID()}`;
    await given.server.request('PUT', `/api/v1/filters/${response.body.keywords[0].id}`, {
      token: given.alice.token,
      headers: { 'x-request-id': renamed },
      form: 'phrase=p',
    });
    const stored = await streamOf(response.body.id);
    assert.deepEqual(
      stored.map((e) => [e.type, e.metadata]),
      [
        [
          'FilterCreated',
          {
            accountId: given.alice.id,
            requestId: created,
            apiVersion: 'v2',
            tokenId: given.alice.token.split('_')[0],
            commitIndex: 0,
            commitSize: 2,
            schemaVersion: 1,
          },
        ],
        [
          'KeywordsUpdated',
          {
            accountId: given.alice.id,
            requestId: created,
            apiVersion: 'v2',
            tokenId: given.alice.token.split('_')[0],
            commitIndex: 1,
            commitSize: 2,
            schemaVersion: 2,
          },
        ],
        [
          'FilterUpdated',
          {
            accountId: given.alice.id,
            requestId: renamed,
            apiVersion: 'v1',
            tokenId: given.alice.token.split('_')[0],
            commitIndex: 0,
            commitSize: 2,
            schemaVersion: 1,
          },
        ],
        [
          'KeywordsUpdated',
          {
            accountId: given.alice.id,
            requestId: renamed,
            apiVersion: 'v1',
            tokenId: given.alice.token.split('_')[0],
            commitIndex: 1,
            commitSize: 2,
            schemaVersion: 2,
          },
        ],
      ],
    );
  });

  it('record a generated request id, the one the response names, when the caller sends none or a malformed one', async () => {
    for (const headers of [{}, { 'x-request-id': 'bad id with spaces' }] as Record<string, string>[]) {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, headers, form: 'title=t&context[]=home' });
      const answered = response.headers.get('x-request-id');
      assert.match(String(answered), /^[0-9a-f-]{36}$/);
      const [event] = await streamOf(response.body.id);
      assert.equal((event!.metadata as { requestId: string }).requestId, answered);
    }
  });

  it('ignore an event type or version this release does not know, on the write side and in the read models', async () => {
    const token = given.alice.token;
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token, form: 'title=t&context[]=home&keywords_attributes[][keyword]=k' })).body;
    // What a newer release, running beside this one during a rolling deploy, could have written.
    const events = given.server.service.stores.events;
    await events.appendToStream(
      filterStream(id),
      [{ type: 'FilterArchived', data: { filterId: id }, metadata: { accountId: given.alice.id, schemaVersion: 1 } }],
      1n,
    );
    await events.appendToStream(filterStream(id), [{ type: 'FilterUpdated', data: { filterId: id, name: 'renamed' }, metadata: { schemaVersion: 2 } }], 2n);
    const update = await given.server.request('PUT', `/api/v2/filters/${id}`, { token, form: 'title=after' });
    assert.equal(update.status, 200, JSON.stringify(update.body));
    assert.equal(update.body.title, 'after');
    const read = await given.server.request('GET', `/api/v2/filters/${id}`, { token });
    assert.equal(read.body.title, 'after');
    assert.deepEqual(read.body.context, ['home']);
    assert.deepEqual(
      (await given.server.request('GET', '/api/v1/filters', { token })).body.map((f: { phrase: string }) => f.phrase),
      ['k'],
    );
    const next = await given.server.request('POST', '/api/v2/filters', { token, form: 'title=next&context[]=home' });
    assert.equal((await given.server.request('GET', `/api/v2/filters/${next.body.id}`, { token })).status, 200);
  });
});
