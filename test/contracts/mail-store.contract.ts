import assert from 'node:assert/strict';
import type { Delivery } from '../../src/webmail/mail/mail-store.ts';
import type { LocationFixture } from '../support/store-locations.ts';
import { HOSTILE_KEYS } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

let sequence = 0;

function delivery(from: string, recipients: readonly string[], fields: Partial<Delivery> = {}): Delivery {
  sequence += 1;
  return {
    messageId: `<m${sequence}@localhost>`,
    from: `${from}@localhost`,
    to: recipients.map((r) => `${r}@localhost`),
    cc: [],
    subject: `message ${sequence}`,
    body: `body ${sequence}`,
    date: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
    senderAccountId: from,
    localRecipients: recipients.map((r) => ({ accountId: r, address: `${r}@localhost` })),
    ...fields,
  };
}

/** The MailStore port: all-or-nothing deliveries, every read scoped to one account, uids growing across connections. */
export function mailStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`MailStore contract: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it("files the sender's copy in Sent (read) and one copy per distinct local recipient in INBOX (unread)", async () => {
      const { mail } = await subject.open();
      const sent = delivery('1', ['2', '3', '2'], { cc: ['Far@Example.org'] });
      const { sentUid } = await mail.deliver(sent);
      const [inSent] = await mail.list('1', 'Sent', 10);
      assert.deepEqual(inSent, {
        uid: sentUid,
        folder: 'Sent',
        from: sent.from,
        to: sent.to,
        cc: sent.cc,
        subject: sent.subject,
        date: sent.date,
        seen: true,
        flagged: false,
      });
      assert.equal((await mail.list('2', 'INBOX', 10)).length, 1, 'a recipient named twice gets one copy');
      const [inInbox] = await mail.list('3', 'INBOX', 10);
      assert.equal(inInbox!.seen, false);
      assert.deepEqual(await mail.get('3', 'INBOX', inInbox!.uid), { ...inInbox, body: sent.body, messageId: sent.messageId, forwarded: [] });
      assert.deepEqual([await mail.unreadCount('2', 'INBOX'), await mail.unreadCount('1', 'Sent'), await mail.unreadCount('1', 'INBOX')], [1, 0, 0]);
    });

    it('lists newest first, and what arrived after a uid', async () => {
      const { mail } = await subject.open();
      const uids: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        await mail.deliver(delivery('1', ['2']));
        uids.push((await mail.list('2', 'INBOX', 1))[0]!.uid);
      }
      assert.deepEqual(
        uids,
        [...uids].sort((a, b) => a - b),
        'uids grow with arrival',
      );
      assert.deepEqual(
        (await mail.list('2', 'INBOX', 3)).map((m) => m.uid),
        uids.slice(1).reverse(),
      );
      assert.deepEqual(
        (await mail.listNewerThan('2', 'INBOX', uids[1]!, 10)).map((m) => m.uid),
        uids.slice(2).reverse(),
      );
      assert.deepEqual(await mail.listNewerThan('2', 'INBOX', uids[3]!, 10), []);
    });

    it('pages with an offset, counts a folder, and moves to Trash only the own entry, deleting from Trash', async () => {
      const { mail } = await subject.open();
      for (let i = 0; i < 3; i++) await mail.deliver(delivery('7', ['8']));
      const all = await mail.list('8', 'INBOX', 10);
      assert.deepEqual(
        (await mail.list('8', 'INBOX', 2, 1)).map((m) => m.uid),
        all.slice(1, 3).map((m) => m.uid),
      );
      assert.deepEqual([await mail.count('8', 'INBOX'), await mail.count('7', 'Sent'), await mail.count('7', 'INBOX')], [3, 3, 0]);
      const [newest] = all;
      assert.equal(await mail.moveToTrash('7', 'INBOX', newest!.uid), false, "another account's entry");
      assert.equal(await mail.moveToTrash('8', 'Sent', newest!.uid), false, 'the wrong folder');
      assert.equal(await mail.moveToTrash('8', 'INBOX', newest!.uid), true);
      assert.deepEqual([await mail.count('8', 'INBOX'), await mail.count('8', 'Trash')], [2, 1]);
      assert.equal((await mail.get('8', 'Trash', newest!.uid))?.subject, newest!.subject);
      assert.equal(await mail.count('7', 'Sent'), 3, "the sender's copy stays");
      assert.equal(await mail.moveToTrash('8', 'Trash', newest!.uid), true);
      assert.deepEqual([await mail.count('8', 'Trash'), await mail.moveToTrash('8', 'Trash', newest!.uid)], [0, false]);
    });

    it("never shows or marks another account's mail, nor a message under the wrong folder", async () => {
      const { mail } = await subject.open();
      await mail.deliver(delivery('1', ['2']));
      const [message] = await mail.list('2', 'INBOX', 1);
      assert.equal(await mail.get('3', 'INBOX', message!.uid), null);
      assert.equal(await mail.get('2', 'Sent', message!.uid), null);
      await mail.markSeen('3', message!.uid);
      assert.equal(await mail.unreadCount('2', 'INBOX'), 1);
      await mail.markSeen('2', message!.uid);
      assert.equal(await mail.unreadCount('2', 'INBOX'), 0);
      assert.equal((await mail.get('2', 'INBOX', message!.uid))!.seen, true);
    });

    it('sets and clears seen and flagged on the own entry in its folder only; false when there is none', async () => {
      const { mail } = await subject.open();
      await mail.deliver(delivery('1', ['2']));
      const [message] = await mail.list('2', 'INBOX', 1);
      const uid = message!.uid;
      assert.equal(await mail.setFlag('3', 'INBOX', uid, 'flagged', true), false, "another account's");
      assert.equal(await mail.setFlag('2', 'Sent', uid, 'flagged', true), false, 'the wrong folder');
      assert.equal(await mail.setFlag('2', 'INBOX', uid + 1000, 'flagged', true), false, 'no such uid');
      assert.equal((await mail.get('2', 'INBOX', uid))!.flagged, false);
      assert.equal(await mail.setFlag('2', 'INBOX', uid, 'flagged', true), true);
      assert.deepEqual(
        (await mail.list('2', 'INBOX', 1)).map((entry) => [entry.seen, entry.flagged]),
        [[false, true]],
      );
      assert.equal(await mail.setFlag('2', 'INBOX', uid, 'seen', true), true);
      assert.equal(await mail.unreadCount('2', 'INBOX'), 0);
      assert.equal(await mail.setFlag('2', 'INBOX', uid, 'seen', false), true);
      assert.equal(await mail.setFlag('2', 'INBOX', uid, 'flagged', false), true);
      assert.deepEqual(
        (await mail.list('2', 'INBOX', 1)).map((entry) => [entry.seen, entry.flagged]),
        [[false, false]],
      );
      assert.equal(await mail.unreadCount('2', 'INBOX'), 1);
    });

    it('completes correspondents by any part in any case, most recent first, patterns taken literally', async () => {
      const { mail } = await subject.open();
      await mail.deliver(delivery('1', ['2'], { to: ['Zed@Example.org'], localRecipients: [] }));
      await mail.deliver(delivery('1', ['2'], { to: ['zoe@example.org', 'a.b+c@x.org'], localRecipients: [] }));
      assert.deepEqual(await mail.correspondents('1', 'EXAMPLE', 10), ['zoe@example.org', 'zed@example.org']);
      assert.deepEqual(await mail.correspondents('1', 'example', 1), ['zoe@example.org']);
      assert.deepEqual(await mail.correspondents('1', 'b+c', 10), ['a.b+c@x.org']);
      for (const pattern of ['%', '_', '.*', '^z', '[a-z]', '(', '\\']) assert.deepEqual(await mail.correspondents('1', pattern, 10), [], pattern);
      assert.deepEqual(await mail.correspondents('2', 'example', 10), [], "another account's correspondents stay its own");
    });

    it('hands out distinct, growing uids to two connections delivering at once, each seeing the other at once', async () => {
      const [first, second] = [await subject.open(), await subject.open()];
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? first : second).mail.deliver(delivery('1', ['2']))));
      const uids = results.map((r) => r.sentUid);
      assert.equal(new Set(uids).size, 10);
      assert.equal((await first.mail.list('2', 'INBOX', 100)).length, 10);
      assert.equal((await second.mail.list('1', 'Sent', 100)).length, 10);
      await first.mail.deliver(delivery('1', ['2']));
      const newest = (await second.mail.list('2', 'INBOX', 1))[0]!.uid;
      assert.ok(
        uids.every((uid) => uid < newest),
        'a later delivery gets a larger uid',
      );
    });

    it('keeps hostile account ids and contents as plain data', async () => {
      const { mail } = await subject.open();
      const body = `$where: ${'y'.repeat(200_000)}`;
      for (const key of HOSTILE_KEYS.filter((k) => k !== '')) {
        const label = key.slice(0, 20);
        await mail.deliver(delivery('sender', [key], { subject: '{"$gt": ""}', body, cc: ['__proto__@x.org'] }));
        const [message] = await mail.list(key, 'INBOX', 10);
        assert.equal(message?.subject, '{"$gt": ""}', label);
        assert.equal((await mail.get(key, 'INBOX', message.uid))?.body, body, label);
        assert.equal(await mail.unreadCount(key, 'INBOX'), 1, label);
      }
      assert.deepEqual(await mail.list('a', 'INBOX', 10), [], 'a dotted id is no path');
      const operator = { $ne: null } as unknown as string;
      assert.deepEqual(await mail.list(operator, 'INBOX', 10).catch(() => []), [], 'an operator object is no account');
      assert.deepEqual([...(await mail.correspondents('sender', '__proto__', 10))].sort(), ['__proto__@localhost', '__proto__@x.org']);
    });
  });
}
