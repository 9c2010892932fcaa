import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';
const at = (user: { username: string }) => `${user.username}@localhost`.toLowerCase();
const source = (client: WebmailClient, mbox: string, uid: string) => client.get(`/webmail/?_task=mail&_action=viewsource&_mbox=${mbox}&_uid=${uid}&_save=1`);

/** The body of the message's `message/rfc822` part, as it stands between its headers and the next boundary. */
function rfc822Part(raw: string): string | undefined {
  const boundary = /boundary="?([^"\r\n;]+)"?/.exec(raw)?.[1];
  const part = raw.split(`\r\n--${boundary}`).find((piece) => /^\r\nContent-Type: message\/rfc822/im.test(piece));
  return part?.slice(part.indexOf('\r\n\r\n') + 4);
}

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail forward as attachment, ${setting.name}`, () => {
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

    const newestUid = async (client: WebmailClient, mbox = 'INBOX') =>
      /data-uid="(\d+)"/.exec((await client.get(`/webmail/?_task=mail&_mbox=${mbox}`)).text)?.[1];

    /** Sender mails the reader; returns the reader's client and the message's uid in their INBOX. */
    async function delivered(subject: string, body: string) {
      const sender = await server.account('from');
      const reader = await server.account('to');
      const client = await signedIn(sender);
      const id = await client.compose();
      await client.post(sendUri, { _id: id, _token: client.requestToken, _to: at(reader), _cc: '', _subject: subject, _body: body });
      const readerClient = await signedIn(reader);
      return { client: readerClient, uid: (await newestUid(readerClient))! };
    }

    async function composeForm(client: WebmailClient, query: string): Promise<string> {
      const opened = await client.get(`/webmail/?_task=mail&_action=compose&${query}&_mbox=INBOX`);
      assert.equal(opened.status, 302);
      return (await client.get(opened.headers.get('location')!)).text;
    }

    it('offers Forward as attachment next to Forward on the message page', async () => {
      const { client, uid } = await delivered('button', 'x');
      const page = (await client.get(`/webmail/?_task=mail&_action=show&_uid=${uid}&_mbox=INBOX`)).text;
      assert.match(
        page,
        new RegExp(
          `>Forward</a>\\n<a class="button" id="forward-attachment-button" href="[^"]*_forward_uid=${uid}[^"]*&amp;_attachment=1">Forward as attachment<`,
        ),
      );
    });

    it('sends the original as a message/rfc822 part, byte for byte, which the recipient receives', async () => {
      const { client, uid } = await delivered('quarterly: plan', 'line one\nline two');
      const original = (await source(client, 'INBOX', uid)).text;
      const form = await composeForm(client, `_forward_uid=${uid}&_attachment=1`);
      assert.match(form, /name="_subject"[^>]*value="Fwd: quarterly: plan"/);
      assert.match(form, /id="forwarded-attachment"[^>]*>quarterly: plan\.eml</);
      assert.match(form, /name="_body"[^>]*>\n<\/textarea>/);
      const third = await server.account('third');
      const id = /name="_id" value="([^"]+)"/.exec(form)![1]!;
      const sent = await client.post(sendUri, {
        _id: id,
        _token: client.requestToken,
        _to: at(third),
        _cc: '',
        _subject: 'Fwd: quarterly: plan',
        _body: 'see attached',
      });
      assert.match(sent.text, /Message sent/);
      const thirdClient = await signedIn(third);
      const received = (await source(thirdClient, 'INBOX', (await newestUid(thirdClient))!)).text;
      assert.match(received, /Content-Type: message\/rfc822; name="?quarterly: plan\.eml"?/);
      assert.equal(rfc822Part(received), original);
      const page = (await thirdClient.get(`/webmail/?_task=mail&_action=show&_uid=${await newestUid(thirdClient)}&_mbox=INBOX`)).text;
      assert.match(page, /quarterly: plan\.eml/);
      assert.equal(rfc822Part((await source(client, 'Sent', (await newestUid(client, 'Sent'))!)).text), original);
    });

    it('refuses, and sends nothing, when the original is gone by the time of sending; the form may be sent again', async () => {
      const { client, uid } = await delivered('vanishing', 'z');
      const form = await composeForm(client, `_forward_uid=${uid}&_attachment=1`);
      const id = /name="_id" value="([^"]+)"/.exec(form)![1]!;
      const removed = await client.post(`/webmail/?_task=mail&_action=delete&_mbox=INBOX&_uid=${uid}`, { _token: client.requestToken });
      assert.ok(removed.status < 400);
      const third = await server.account('third');
      const sent = await client.post(sendUri, { _id: id, _token: client.requestToken, _to: at(third), _cc: '', _subject: 'Fwd: vanishing', _body: '' });
      assert.match(sent.text, /The forwarded message no longer exists\./);
      assert.equal(await newestUid(await signedIn(third)), undefined);
      assert.equal((await client.get(`/webmail/?_task=mail&_action=compose&_id=${id}`)).status, 200);
    });

    it('needs the request token like every send', async () => {
      const { client, uid } = await delivered('tokened', 'z');
      const form = await composeForm(client, `_forward_uid=${uid}&_attachment=1`);
      const id = /name="_id" value="([^"]+)"/.exec(form)![1]!;
      const third = await server.account('third');
      const sent = await client.post(sendUri, { _id: id, _token: 'x'.repeat(32), _to: at(third), _cc: '', _subject: 'Fwd: tokened', _body: '' });
      assert.notEqual(sent.status, 200);
      assert.equal(await newestUid(await signedIn(third)), undefined);
    });
  });
