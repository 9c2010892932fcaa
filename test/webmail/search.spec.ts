import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1';
const subjectsOf = (page: string) => [...page.matchAll(/<td class="subject"><a [^>]*>([^<]*)<\/a>/g)].map((match) => match[1]);

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail search in a folder, ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    async function signedIn(user: { username: string; password: string }): Promise<WebmailClient> {
      const client = new WebmailClient(server.baseUrl);
      await client.login(user.username, user.password);
      return client;
    }

    /** A fresh reader with mail from a fresh sender, one message per [subject, body]; the reader's client and the sender's address. */
    async function mailbox(mails: readonly (readonly [string, string])[]) {
      const sender = await server.account('sender');
      const reader = await server.account('reader');
      const client = await signedIn(sender);
      for (const [subject, body] of mails) {
        const form = { _id: await client.compose(), _token: client.requestToken, _to: `${reader.username}@localhost`, _cc: '', _subject: subject, _body: body };
        assert.match((await client.post(sendUri, form)).text, /Message sent successfully/);
      }
      return { client: await signedIn(reader), sender: `${sender.username}@localhost` };
    }

    it('finds by subject and sender by default, by body when asked; the page keeps the search in its form', async () => {
      const { client, sender } = await mailbox([
        ['Budget for 2027', 'numbers'],
        ['lunch', 'bring the budget <sheet>'],
        ['other', 'nothing'],
      ]);
      let page = (await client.get('/webmail/?_task=mail&_mbox=INBOX&_q=BUDGET')).text;
      assert.deepEqual(subjectsOf(page), ['Budget for 2027']);
      assert.match(page, /<h1>Search results in Inbox<\/h1>/);
      assert.match(page, /name="_q" maxlength="200" value="BUDGET"/);
      assert.match(page, /id="reset-search"/);
      page = (await client.get('/webmail/?_task=mail&_mbox=INBOX&_q=budget&_headers=subject&_headers=body')).text;
      assert.deepEqual(subjectsOf(page), ['lunch', 'Budget for 2027']);
      assert.match(page, /value="body" checked/);
      page = (await client.get(`/webmail/?_task=mail&_mbox=INBOX&_q=${encodeURIComponent(sender.slice(0, 12))}&_headers=from`)).text;
      assert.deepEqual(subjectsOf(page), ['other', 'lunch', 'Budget for 2027']);
      page = (await client.get('/webmail/?_task=mail&_mbox=INBOX&_q=absent-everywhere&_headers=subject&_headers=from&_headers=to&_headers=body')).text;
      assert.deepEqual(subjectsOf(page), []);
      assert.match(page, /No messages found\./);
    });

    it("never finds another user's mail", async () => {
      await mailbox([['secret plans', 'x']]);
      const stranger = await signedIn(await server.account('stranger'));
      assert.deepEqual(subjectsOf((await stranger.get('/webmail/?_task=mail&_mbox=INBOX&_q=secret%20plans')).text), []);
    });

    it('refuses a search text over 200 characters, with a control character, or an unknown field: 400, nothing searched', async () => {
      const { client } = await mailbox([['kept', 'x']]);
      assert.equal((await client.get(`/webmail/?_task=mail&_q=${'a'.repeat(200)}`)).status, 200);
      for (const query of [`_q=${'a'.repeat(201)}`, '_q=a%0D%0AX%20LOGOUT', '_q=a%00b', '_q=kept&_headers=subject&_headers=bcc', '_q=kept&_headers=text']) {
        const answer = await client.get(`/webmail/?_task=mail&${query}`);
        assert.equal(answer.status, 400, query);
        assert.match(answer.text, /Invalid search/, query);
      }
    });
  });
