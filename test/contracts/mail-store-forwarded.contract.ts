import assert from 'node:assert/strict';
import type { LocationFixture } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

/** Originals forwarded as attachments are kept byte for byte with every copy; the compose ID remembers which. */
export function mailStoreForwardedContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`MailStore and ComposeStore, forward as attachment: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it('keeps each forwarded original byte for byte in Sent and in every INBOX copy, and none on other mail', async () => {
      const { mail } = await subject.open();
      const raw = Buffer.from([...Buffer.from('Subject: x\r\n\r\n'), 0, 255, 0x80, 13, 10, ...Buffer.from('é\u0000end')]);
      const base = { from: 'f1@localhost', to: ['f2@localhost'], cc: [], subject: 'Fwd: x', body: 'see', date: new Date().toISOString() };
      const recipients = [{ accountId: 'f2', address: 'f2@localhost' }];
      const forwarded = [{ filename: 'x.eml', raw }];
      const { sentUid } = await mail.deliver({ ...base, messageId: '<fw1@localhost>', senderAccountId: 'f1', localRecipients: recipients, forwarded });
      assert.deepEqual((await mail.get('f1', 'Sent', sentUid))!.forwarded, forwarded);
      const [copy] = await mail.list('f2', 'INBOX', 1);
      assert.deepEqual((await mail.get('f2', 'INBOX', copy!.uid))!.forwarded, forwarded);
      const plain = await mail.deliver({ ...base, messageId: '<fw2@localhost>', senderAccountId: 'f1', localRecipients: [] });
      assert.deepEqual((await mail.get('f1', 'Sent', plain.sentUid))!.forwarded, []);
    });

    it('remembers the original a compose ID forwards', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      const defaults = { to: '', cc: '', subject: 'Fwd: x', body: '', forwardAttachment: { folder: 'INBOX', uid: 7, filename: 'x.eml' } };
      const draft = await compose.open(session.id, defaults);
      assert.deepEqual((await compose.find(session.id, draft.id))?.defaults, defaults);
    });
  });
}
