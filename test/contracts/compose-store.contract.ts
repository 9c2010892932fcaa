import assert from 'node:assert/strict';
import type { LocationFixture } from '../support/store-locations.ts';
import { HOSTILE_KEYS } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

const EMPTY = { to: '', cc: '', subject: '', body: '' };

/** The ComposeStore port: a compose ID belongs to one session and sends one message, whoever races for it. */
export function composeStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`ComposeStore contract: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it('keeps the defaults of an open compose ID for its session only', async () => {
      const { sessions, compose } = await subject.open();
      const [mine, theirs] = [await sessions.create(false), await sessions.create(false)];
      const defaults = { to: 'a@b, c@d', cc: 'e@f', subject: 'Re: $where {"a.b": 1}', body: `__proto__\n${'x'.repeat(200_000)}` };
      const draft = await compose.open(mine.id, defaults);
      assert.match(draft.id, /^[0-9]+[0-9a-f]{13}$/);
      assert.deepEqual(await compose.find(mine.id, draft.id), { id: draft.id, defaults, draft: null });
      assert.equal(await compose.find(theirs.id, draft.id), null);
      assert.equal(await compose.claim(theirs.id, draft.id), false, "another session's ID is not claimed");
    });

    it('lets exactly one of two connections claim an ID at once; a release reopens it, a finish ends it', async () => {
      const [first, second] = [await subject.open(), await subject.open()];
      const session = await first.sessions.create(false);
      const draft = await first.compose.open(session.id, EMPTY);
      const claims = await Promise.all([first.compose.claim(session.id, draft.id), second.compose.claim(session.id, draft.id)]);
      assert.deepEqual(claims.sort(), [false, true]);
      assert.equal(await second.compose.find(session.id, draft.id), null, 'an ID being sent is not open for editing');
      await second.compose.release(draft.id);
      assert.deepEqual(await first.compose.find(session.id, draft.id), { id: draft.id, defaults: EMPTY, draft: null });
      assert.equal(await first.compose.claim(session.id, draft.id), true);
      await first.compose.finish(draft.id);
      await second.compose.release(draft.id);
      assert.equal(await second.compose.claim(session.id, draft.id), false, 'a finished ID never sends again');
    });

    it('finds and claims nothing for hostile ids', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      const draft = await compose.open(session.id, EMPTY);
      const operators = [{ $ne: null }, { $gt: '' }] as unknown as string[];
      for (const key of [...HOSTILE_KEYS, ...operators]) {
        const label = JSON.stringify(key).slice(0, 20);
        assert.equal(await compose.find(session.id, key), null, label);
        assert.equal(await compose.find(key, draft.id), null, label);
        assert.equal(await compose.claim(session.id, key), false, label);
        assert.equal(await compose.claim(key, draft.id), false, label);
        await compose.finish(key);
      }
      assert.deepEqual(await compose.find(session.id, draft.id), { id: draft.id, defaults: EMPTY, draft: null });
    });
  });
}
