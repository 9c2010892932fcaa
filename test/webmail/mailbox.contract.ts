import assert from 'node:assert/strict';
import type { Mailbox } from '../../src/webmail/mail/mailbox.ts';
import type { MailboxFixture, MailUser } from './mailbox-fixtures.ts';

/**
 * The Mailbox port, the same for the local store and an IMAP server: sign-in, folders with their roles,
 * newest-first paged lists, reading marks seen, new mail after a uid, sending lands in the recipient's
 * INBOX and the sender's Sent, delete moves to Trash.
 */
export function mailboxContract(name: string, fixture: () => MailboxFixture | null): void {
  describe(`Mailbox contract: ${name}`, function () {
    const opened: Mailbox[] = [];
    let setting: MailboxFixture;
    beforeEach(function () {
      const got = fixture();
      if (!got) this.skip();
      setting = got!;
    });
    afterEach(async () => {
      for (const mailbox of opened.splice(0)) await mailbox.close();
    });

    async function open(user: MailUser): Promise<Mailbox> {
      const identity = await setting.provider.authenticate(user.login, user.password);
      assert.ok(identity, `${user.login} signs in`);
      const mailbox = await setting.provider.open(identity);
      opened.push(mailbox);
      return mailbox;
    }

    it('signs in with the right password only, and counts failures against the name', async () => {
      const alice = await setting.user('alice');
      assert.equal(await setting.provider.authenticate(alice.login, `${alice.password}x`), null);
      assert.equal(await setting.provider.authenticate(`nobody-${alice.login}`, alice.password), null);
      assert.equal((await setting.provider.authenticate(alice.login, alice.password))?.username, alice.login);
      assert.notEqual(await setting.provider.rateLimitKey(alice.login), null);
    });

    it('has an inbox, a Sent and a Trash folder, and the address is the user’s', async () => {
      const alice = await setting.user('alice');
      const mailbox = await open(alice);
      const roles = (await mailbox.folders()).map((folder) => folder.role);
      for (const role of ['inbox', 'sent', 'trash'] as const) assert.ok(roles.includes(role), `${role} in ${roles.join(',')}`);
      assert.equal(mailbox.address, alice.address.toLowerCase());
    });

    it('lists mail from outside newest first, unread, paged; reading marks it seen', async () => {
      const bob = await setting.user('bob');
      for (const n of [1, 2, 3]) await setting.deliver(bob, { from: 'carol@example.org', subject: `hello ${n}`, body: `body ${n}` });
      const mailbox = await open(bob);
      const first = await mailbox.list('INBOX', 0, 2);
      assert.equal(first.total, 3);
      assert.deepEqual(
        first.messages.map((m) => [m.subject, m.from, m.seen]),
        [
          ['hello 3', 'carol@example.org', false],
          ['hello 2', 'carol@example.org', false],
        ],
      );
      assert.deepEqual(
        (await mailbox.list('INBOX', 2, 2)).messages.map((m) => m.subject),
        ['hello 1'],
      );
      assert.equal(await mailbox.unreadCount('INBOX'), 3);
      const read = await mailbox.read('INBOX', first.messages[0]!.uid, true);
      assert.equal(read?.body.trim(), 'body 3');
      assert.equal(read?.seen, true);
      assert.equal(await mailbox.unreadCount('INBOX'), 2);
      assert.equal((await mailbox.folders()).find((f) => f.role === 'inbox')?.unread, 2);
      assert.equal(await mailbox.read('INBOX', first.messages[0]!.uid + 1000, true), null, 'no such message');
    });

    it('reports only the mail that arrived after a uid', async () => {
      const bob = await setting.user('bob');
      await setting.deliver(bob, { from: 'carol@example.org', subject: 'old', body: '' });
      const mailbox = await open(bob);
      const [old] = (await mailbox.list('INBOX', 0, 10)).messages;
      assert.deepEqual(await mailbox.listNewerThan('INBOX', old!.uid, 10), []);
      await setting.deliver(bob, { from: 'carol@example.org', subject: 'new', body: '' });
      assert.deepEqual(
        (await mailbox.listNewerThan('INBOX', old!.uid, 10)).map((m) => m.subject),
        ['new'],
      );
    });

    it('sends to another user: it arrives in their INBOX and in the sender’s Sent, and they become a correspondent', async () => {
      const alice = await setting.user('alice');
      const bob = await setting.user('bob');
      const outbox = await open(alice);
      assert.deepEqual(await outbox.send({ to: bob.address, cc: '', subject: 'lunch?', body: 'at noon' }), { kind: 'sent' });
      const sentFolder = (await outbox.folders()).find((f) => f.role === 'sent')!;
      const [copy] = (await outbox.list(sentFolder.path, 0, 10)).messages;
      assert.deepEqual([copy?.subject, copy?.to, copy?.seen], ['lunch?', [bob.address.toLowerCase()], true]);
      const [arrived] = (await (await open(bob)).list('INBOX', 0, 10)).messages;
      assert.deepEqual([arrived?.subject, arrived?.from], ['lunch?', alice.address.toLowerCase()]);
      assert.deepEqual(await outbox.correspondents(bob.login.slice(0, 5), 10), [bob.address.toLowerCase()]);
    });

    it('refuses a send without recipients or with a bad address, and keeps nothing', async () => {
      const alice = await setting.user('alice');
      const mailbox = await open(alice);
      assert.equal((await mailbox.send({ to: '', cc: '', subject: 's', body: '' })).kind, 'refused');
      assert.equal((await mailbox.send({ to: 'not an address@@', cc: '', subject: 's', body: '' })).kind, 'refused');
      const sentFolder = (await mailbox.folders()).find((f) => f.role === 'sent')!;
      assert.equal((await mailbox.list(sentFolder.path, 0, 10)).total, 0);
    });

    it('delete moves to Trash, and from Trash removes for good', async () => {
      const bob = await setting.user('bob');
      await setting.deliver(bob, { from: 'carol@example.org', subject: 'junk', body: '' });
      const mailbox = await open(bob);
      const [message] = (await mailbox.list('INBOX', 0, 10)).messages;
      assert.equal(await mailbox.remove('INBOX', message!.uid), true);
      assert.equal((await mailbox.list('INBOX', 0, 10)).total, 0);
      const trash = (await mailbox.folders()).find((f) => f.role === 'trash')!;
      const [trashed] = (await mailbox.list(trash.path, 0, 10)).messages;
      assert.equal(trashed?.subject, 'junk');
      assert.equal(await mailbox.remove('INBOX', message!.uid), false, 'already gone from INBOX');
      assert.equal(await mailbox.remove(trash.path, trashed.uid), true);
      assert.equal((await mailbox.list(trash.path, 0, 10)).total, 0);
    });

    it('searches the folder by subject, sender or body (IMAP SEARCH; the local store), any case, paged', async () => {
      const bob = await setting.user('bob');
      await setting.deliver(bob, { from: 'carol@example.org', subject: 'Budget 2027', body: 'numbers' });
      await setting.deliver(bob, { from: 'dave@example.org', subject: 'hello', body: 'about the BUDGET, later' });
      await setting.deliver(bob, { from: 'budget-office@example.org', subject: 'memo', body: 'x' });
      await setting.deliver(bob, { from: 'erin@example.org', subject: 'unrelated', body: 'y' });
      const mailbox = await open(bob);
      const subjects = async (fields: ('subject' | 'from' | 'to' | 'body')[], offset = 0, limit = 10) =>
        (await mailbox.search('INBOX', { text: 'budget', fields }, offset, limit)).messages.map((m) => m.subject);
      assert.deepEqual(await subjects(['subject']), ['Budget 2027']);
      assert.deepEqual(await subjects(['from']), ['memo']);
      assert.deepEqual(await subjects(['body']), ['hello']);
      assert.deepEqual(await subjects(['subject', 'from', 'body']), ['memo', 'hello', 'Budget 2027']);
      const page = await mailbox.search('INBOX', { text: 'BUDGET', fields: ['subject', 'from', 'body'] }, 1, 1);
      assert.deepEqual([page.total, page.messages.map((m) => m.subject)], [3, ['hello']]);
      assert.deepEqual(await mailbox.search('No such folder', { text: 'budget', fields: ['subject'] }, 0, 10), { total: 0, messages: [] });
    });

    it('an unknown folder is empty, not an error', async () => {
      const bob = await setting.user('bob');
      const mailbox = await open(bob);
      assert.deepEqual(await mailbox.list('No such folder', 0, 10), { total: 0, messages: [] });
      assert.equal(await mailbox.read('No such folder', 1, true), null);
      assert.equal(await mailbox.remove('No such folder', 1), false);
    });
  });
}
