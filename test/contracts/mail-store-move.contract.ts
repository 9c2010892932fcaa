import assert from 'node:assert/strict';
import type { LocationFixture } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

let sequence = 0;

/** The local store's move between folders: the own entry in its folder only. */
export function mailStoreMoveContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`MailStore move: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it("moves the own entry to another folder; not another account's, not from the wrong folder, not onto itself", async () => {
      const { mail } = await subject.open();
      sequence += 1;
      await mail.deliver({
        messageId: `<mv${sequence}@localhost>`,
        from: 'carol@example.org',
        to: ['reader@localhost'],
        cc: [],
        subject: 'to move',
        body: 'x',
        date: new Date().toISOString(),
        senderAccountId: 'outside',
        localRecipients: [{ accountId: 'reader', address: 'reader@localhost' }],
      });
      const [entry] = await mail.list('reader', 'INBOX', 1);
      const uid = entry!.uid;
      assert.equal(await mail.moveTo('someone-else', 'INBOX', uid, 'Trash'), false);
      assert.equal(await mail.moveTo('reader', 'Sent', uid, 'Trash'), false);
      assert.equal(await mail.moveTo('reader', 'INBOX', uid, 'INBOX'), false);
      assert.equal(await mail.moveTo('reader', 'INBOX', uid, 'Trash'), true);
      assert.deepEqual([await mail.count('reader', 'INBOX'), await mail.count('reader', 'Trash')], [0, 1]);
      assert.equal(await mail.moveTo('reader', 'Trash', uid, 'INBOX'), true);
      assert.equal((await mail.get('reader', 'INBOX', uid))?.subject, 'to move');
      assert.equal(await mail.count('outside', 'Sent'), 1, "the sender's copy stays");
    });
  });
}
