import assert from 'node:assert/strict';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

for (const setting of WEBMAIL_ADAPTERS) {
  describe(`webmail mailbox requests with bad input, ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    it('answers odd folders, uids and pages with a page, a 404 or a 400, never a 500 or an error line', async () => {
      const user = await server.account('odd');
      const client = new WebmailClient(server.baseUrl);
      assert.equal((await client.login(user.username, user.password)).status, 302);
      const before = server.errorLines().length;
      for (const path of [
        '/webmail/?_task=mail&_mbox=..%2F..%2Fetc&_page=abc',
        '/webmail/?_task=mail&_mbox=INBOX&_page=99999999999999999999',
        '/webmail/?_task=mail&_mbox=%22%0D%0Ax%20LOGOUT',
      ]) {
        const page = await client.get(path);
        assert.equal(page.status, 200, path);
        assert.match(page.text, /<h1>Inbox<\/h1>|This folder is empty/, path);
      }
      for (const uid of ['99999999999', '-1', '1e3', 'x', '4294967295']) {
        assert.equal((await client.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${uid}`)).status, 404, uid);
        assert.equal(
          (await client.post(`/webmail/?_task=mail&_action=delete&_mbox=INBOX&_uid=${uid}`, { _token: client.requestToken })).status,
          uid === '4294967295' ? 404 : 400,
          uid,
        );
      }
      const reply = await client.get('/webmail/?_task=mail&_action=compose&_reply_uid=99999999999999&_mbox=INBOX');
      assert.equal(reply.status, 302, 'an unknown original starts an empty message');
      assert.deepEqual(server.errorLines().slice(before), []);
    });
  });
}
