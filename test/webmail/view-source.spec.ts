import assert from 'node:assert/strict';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';
import type { WebmailServer } from '../support/webmail-server.ts';
import { waitUntil } from '../support/wait-until.ts';

const source = (uid: string, save = '&_save=1') => `/webmail/?_task=mail&_action=viewsource&_mbox=INBOX&_uid=${uid}${save}`;

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail: the original of a message (viewsource), ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    /** Bob, signed in, with one message from Alice; its uid. */
    async function received(subject: string, body: string): Promise<{ client: WebmailClient; uid: string }> {
      const [alice, bob] = [await server.account('alice'), await server.account('bob')];
      const sender = new WebmailClient(server.baseUrl);
      await sender.login(alice.username, alice.password);
      const form = { _id: await sender.compose(), _token: sender.requestToken, _to: `${bob.username}@localhost`, _cc: '', _subject: subject, _body: body };
      assert.match((await sender.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form)).text, /Message sent successfully/);
      const client = new WebmailClient(server.baseUrl);
      await client.login(bob.username, bob.password);
      let uid = '';
      await waitUntil(async () => {
        uid = /data-uid="(\d+)"/.exec((await client.get('/webmail/?_task=mail&_mbox=INBOX')).text)?.[1] ?? '';
        return uid !== '';
      }, 'the message in INBOX');
      return { client, uid };
    }

    it('downloads it as message/rfc822 named after the subject, with its headers and text', async () => {
      const { client, uid } = await received('Minutes / "draft"', 'the text of the minutes');
      const answer = await client.get(source(uid));
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^message\/rfc822/);
      assert.equal(answer.headers.get('content-disposition'), 'attachment; filename="Minutes _ _draft_.eml"');
      // The quotes make nodemailer encode the subject: the bytes are the ones that went out.
      assert.match(answer.text, /^Subject: =\?UTF-8\?Q\?Minutes_\/_=22draft=22\?=\r$/m);
      assert.match(answer.text, /\r\n\r\nthe text of the minutes/);
      assert.equal(answer.headers.get('x-frame-options'), 'sameorigin');
    });

    it('shows it as plain text without _save=1', async () => {
      const { client, uid } = await received('plain view', 'shown as text <b>not markup</b>');
      const answer = await client.get(source(uid, ''));
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; charset=utf-8/);
      assert.equal(answer.headers.get('content-disposition'), null);
      assert.match(answer.text, /shown as text <b>not markup<\/b>/);
    });

    it('answers 404 for a message that is not there, and a bad uid', async () => {
      const { client, uid } = await received('there', 'x');
      assert.equal((await client.get(source(String(Number(uid) + 1000)))).status, 404);
      assert.equal((await client.get(source('abc'))).status, 404);
    });

    it('shows nothing without a session', async () => {
      const { uid } = await received('private', 'secret words');
      const stranger = await new WebmailClient(server.baseUrl).get(source(uid));
      assert.doesNotMatch(stranger.text, /secret words/);
    });
  });
