import assert from 'node:assert/strict';
import type { TestAccount, TestServer } from '../support/test-server.ts';

export interface AnnouncementProbe {
  /** Messages heard so far on `timeline.<accountId>`, each exactly `{"event":"filters_changed"}`. */
  heard(accountId: string): Promise<number>;
}

/**
 * Every request that changes an account's filters announces exactly once, after commit; a refused,
 * failed or no-op request announces nothing. Shared by the in-process and the NATS suites.
 */
export function announcementCases(context: () => { server: TestServer; probe: AnnouncementProbe }): void {
  let server: TestServer;
  let probe: AnnouncementProbe;
  let alice: TestAccount;
  let bob: TestAccount;

  beforeEach(async () => {
    ({ server, probe } = context());
    alice = await server.account();
    bob = await server.account();
  });

  const expectAnnouncements = async (who: TestAccount, count: number, request: () => Promise<{ status: number }>, status = 200) => {
    const before = await probe.heard(who.id);
    const response = await request();
    assert.equal(response.status, status);
    assert.equal((await probe.heard(who.id)) - before, count);
  };
  const call = (who: TestAccount, method: string, path: string, form?: string) => () =>
    server.request(method, path, { token: who.token, ...(form === undefined ? {} : { form }) });

  it('announces each change to v2 filters once', async () => {
    let id = '';
    await expectAnnouncements(alice, 1, async () => {
      const response = await server.request('POST', '/api/v2/filters', { token: alice.token, form: 'title=t&context[]=home&keywords_attributes[][keyword]=a' });
      id = response.body.id;
      return response;
    });
    const keywordId = (await server.request('GET', `/api/v2/filters/${id}`, { token: alice.token })).body.keywords[0].id;
    const bulk = `title=u&keywords_attributes[0][id]=${keywordId}&keywords_attributes[0][keyword]=updated&keywords_attributes[1][keyword]=b`;
    await expectAnnouncements(alice, 1, call(alice, 'PUT', `/api/v2/filters/${id}`, bulk));
    await expectAnnouncements(alice, 1, call(alice, 'DELETE', `/api/v2/filters/${id}`));
  });

  it('announces each change to keywords and statuses once', async () => {
    const { id } = (await server.request('POST', '/api/v2/filters', { token: alice.token, form: 'title=t&context[]=home' })).body;
    let keywordId = '';
    await expectAnnouncements(alice, 1, async () => {
      const response = await server.request('POST', `/api/v2/filters/${id}/keywords`, { token: alice.token, form: 'keyword=k' });
      keywordId = response.body.id;
      return response;
    });
    await expectAnnouncements(alice, 1, call(alice, 'PUT', `/api/v2/filters/keywords/${keywordId}`, 'keyword=k2'));
    await expectAnnouncements(alice, 1, call(alice, 'DELETE', `/api/v2/filters/keywords/${keywordId}`));
    let statusId = '';
    await expectAnnouncements(alice, 1, async () => {
      const response = await server.request('POST', `/api/v2/filters/${id}/statuses`, { token: alice.token, form: 'status_id=5' });
      statusId = response.body.id;
      return response;
    });
    await expectAnnouncements(alice, 1, call(alice, 'DELETE', `/api/v2/filters/statuses/${statusId}`));
  });

  it('announces each change through v1 once', async () => {
    let id = '';
    await expectAnnouncements(alice, 1, async () => {
      const response = await server.request('POST', '/api/v1/filters', { token: alice.token, form: 'phrase=p&context[]=home' });
      id = response.body.id;
      return response;
    });
    await expectAnnouncements(alice, 1, call(alice, 'PUT', `/api/v1/filters/${id}`, 'phrase=q'));
    await expectAnnouncements(alice, 1, call(alice, 'DELETE', `/api/v1/filters/${id}`));
  });

  it('announces nothing for refused, failed or no-op requests', async () => {
    const { id } = (await server.request('POST', '/api/v2/filters', { token: alice.token, form: 'title=t&context[]=home' })).body;
    const readOnly = await server.token(alice, ['read']);
    await expectAnnouncements(alice, 0, call(alice, 'PUT', `/api/v2/filters/${id}`, 'title=t'));
    await expectAnnouncements(alice, 0, call(alice, 'PUT', `/api/v2/filters/${id}`, 'context[]=word'), 422);
    await expectAnnouncements(alice, 0, call(alice, 'POST', '/api/v2/filters', 'title=x'), 422);
    await expectAnnouncements(alice, 0, () => server.request('DELETE', `/api/v2/filters/${id}`, { token: readOnly }), 403);
    await expectAnnouncements(alice, 0, () => server.request('DELETE', `/api/v2/filters/${id}`, { token: 'bad' }), 401);
    await expectAnnouncements(alice, 0, call(bob, 'DELETE', `/api/v2/filters/${id}`), 404);
    await expectAnnouncements(bob, 0, call(bob, 'DELETE', `/api/v2/filters/${id}`), 404);
  });

  it("announces on the owner's subject only", async () => {
    const bobBefore = await probe.heard(bob.id);
    await expectAnnouncements(alice, 1, call(alice, 'POST', '/api/v2/filters', 'title=t&context[]=home'));
    assert.equal(await probe.heard(bob.id), bobBefore);
  });
}
