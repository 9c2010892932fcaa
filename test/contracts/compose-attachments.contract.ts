import assert from 'node:assert/strict';
import type { LocationFixture } from '../support/store-locations.ts';
import { HOSTILE_KEYS } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

const EMPTY = { to: '', cc: '', subject: '', body: '' };
const ROOM = { files: 3, totalBytes: 1000 };
const file = (filename: string, content: Buffer | string) => ({ filename, contentType: 'application/octet-stream', content: Buffer.from(content) });

/** The files uploaded into a compose ID: its session's only, held to the room atomically, kept byte for byte. */
export function composeAttachmentsContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`ComposeStore attachments and drafts: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it('keeps uploaded files byte for byte in order, for their session only, and removes one on request', async () => {
      const { sessions, compose } = await subject.open();
      const [mine, theirs] = [await sessions.create(false), await sessions.create(false)];
      const id = (await compose.open(mine.id, EMPTY)).id;
      const bytes = Buffer.from([0, 255, 13, 10, 0x80, ...Buffer.from('é')]);
      const first = await compose.attach(mine.id, id, file('résumé.pdf', bytes), ROOM);
      const second = await compose.attach(mine.id, id, file('empty', ''), ROOM);
      assert.ok(first && first !== 'full' && second && second !== 'full');
      assert.deepEqual(await compose.attachments(mine.id, id), [
        { id: first.id, filename: 'résumé.pdf', contentType: 'application/octet-stream', size: bytes.length },
        { id: second.id, filename: 'empty', contentType: 'application/octet-stream', size: 0 },
      ]);
      assert.deepEqual(
        (await compose.attachedFiles(mine.id, id)).map((f) => f.content),
        [bytes, Buffer.alloc(0)],
      );
      assert.deepEqual(await compose.attachments(theirs.id, id), []);
      assert.deepEqual(await compose.attachedFiles(theirs.id, id), []);
      assert.equal(await compose.attach(theirs.id, id, file('x', 'x'), ROOM), null, "another session's ID takes no file");
      assert.equal(await compose.detach(theirs.id, id, first.id), false);
      assert.equal(await compose.detach(mine.id, id, first.id), true);
      assert.equal(await compose.detach(mine.id, id, first.id), false, 'removed once');
      assert.deepEqual(
        (await compose.attachments(mine.id, id)).map((f) => f.id),
        [second.id],
      );
    });

    it('refuses a file past the room (files or bytes), also when uploads race, and frees the room of a removed one', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      const id = (await compose.open(session.id, EMPTY)).id;
      assert.equal(await compose.attach(session.id, id, file('big', 'x'.repeat(1001)), ROOM), 'full');
      const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => compose.attach(session.id, id, file(`f${i}`, 'x'.repeat(300)), ROOM)));
      assert.equal(racing.filter((r) => r !== 'full').length, 3);
      const sizes = (await compose.attachments(session.id, id)).map((f) => f.size);
      assert.deepEqual(sizes, [300, 300, 300]);
      assert.equal(await compose.attach(session.id, id, file('one more', 'x'), ROOM), 'full', 'three files is the room');
      const [gone] = await compose.attachments(session.id, id);
      assert.equal(await compose.detach(session.id, id, gone!.id), true);
      assert.notEqual(await compose.attach(session.id, id, file('fits again', 'x'.repeat(400)), ROOM), 'full');
      assert.equal(await compose.attach(session.id, id, file('past the bytes', 'x'.repeat(1)), { files: 9, totalBytes: 1000 }), 'full');
    });

    it('takes no file for an ID being sent or finished, and drops its files with it', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      const id = (await compose.open(session.id, EMPTY)).id;
      await compose.attach(session.id, id, file('a', 'a'), ROOM);
      assert.equal(await compose.claim(session.id, id), true);
      assert.equal(await compose.attach(session.id, id, file('late', 'b'), ROOM), null);
      assert.equal((await compose.attachedFiles(session.id, id)).length, 1, 'the send still reads its files after the claim');
      await compose.finish(id);
      assert.deepEqual(await compose.attachedFiles(session.id, id), []);
    });

    it('remembers where the draft was saved last, for its session only', async () => {
      const { sessions, compose } = await subject.open();
      const [mine, theirs] = [await sessions.create(false), await sessions.create(false)];
      const id = (await compose.open(mine.id, EMPTY)).id;
      await compose.keepDraft(mine.id, id, { folder: 'Drafts', uid: 4 });
      await compose.keepDraft(mine.id, id, { folder: 'Drafts', uid: 9 });
      await compose.keepDraft(theirs.id, id, { folder: 'Drafts', uid: 666 });
      assert.deepEqual((await compose.find(mine.id, id))?.draft, { folder: 'Drafts', uid: 9 });
    });

    it('does nothing for hostile ids', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      const id = (await compose.open(session.id, EMPTY)).id;
      const kept = await compose.attach(session.id, id, file('kept', 'k'), ROOM);
      const operators = [{ $ne: null }, { $gt: '' }] as unknown as string[];
      for (const key of [...HOSTILE_KEYS, ...operators]) {
        const label = JSON.stringify(key).slice(0, 20);
        assert.equal(await compose.attach(session.id, key, file('x', 'x'), ROOM), null, label);
        assert.equal(await compose.attach(key, id, file('x', 'x'), ROOM), null, label);
        assert.deepEqual(await compose.attachments(key, id), [], label);
        assert.equal(await compose.detach(session.id, id, key), false, label);
      }
      assert.deepEqual(
        (await compose.attachments(session.id, id)).map((f) => f.id),
        [(kept as { id: string }).id],
      );
    });
  });
}
