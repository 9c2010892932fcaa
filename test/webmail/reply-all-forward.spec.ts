import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail reply-all and forward, ${setting.name}`, () => {
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

    /** Sender mails reader (To, with a second To) and a Cc; returns the reader's client and the addresses. */
    async function delivered(subject: string, body: string) {
      const sender = await server.account('from');
      const reader = await server.account('to');
      const other = await server.account('other');
      const copy = await server.account('cc');
      const at = (user: { username: string }) => `${user.username}@localhost`.toLowerCase();
      const client = await signedIn(sender);
      const id = await client.compose();
      await client.post(sendUri, { _id: id, _token: client.requestToken, _to: `${at(reader)}, ${at(other)}`, _cc: at(copy), _subject: subject, _body: body });
      const readerClient = await signedIn(reader);
      const list = (await readerClient.get('/webmail/?_task=mail')).text;
      const uid = /data-uid="(\d+)"/.exec(list)![1]!;
      return { client: readerClient, uid, sender: at(sender), reader: at(reader), other: at(other), copy: at(copy) };
    }

    async function composeForm(client: WebmailClient, query: string): Promise<string> {
      const opened = await client.get(`/webmail/?_task=mail&_action=compose&${query}&_mbox=INBOX`);
      assert.equal(opened.status, 302);
      return (await client.get(opened.headers.get('location')!)).text;
    }

    const field = (form: string, name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(form)?.[1];

    it('offers Reply all and Forward on the message page', async () => {
      const { client, uid } = await delivered('buttons', 'x');
      const page = (await client.get(`/webmail/?_task=mail&_action=show&_uid=${uid}&_mbox=INBOX`)).text;
      assert.match(page, new RegExp(`href="[^"]*_reply_uid=${uid}[^"]*&amp;_reply_mode=all">Reply all<`));
      assert.match(page, new RegExp(`href="[^"]*_forward_uid=${uid}[^"]*">Forward<`));
    });

    it('reply-all addresses the sender and copies the other recipients and Cc, never the user', async () => {
      const { client, uid, sender, other, copy } = await delivered('team plan', 'first line');
      const form = await composeForm(client, `_reply_uid=${uid}&_reply_mode=all`);
      assert.equal(field(form, '_to'), sender);
      assert.equal(field(form, '_cc'), `${other}, ${copy}`);
      assert.equal(field(form, '_subject'), 'Re: team plan');
      assert.match(form, /On [^<]+ wrote:\n&gt; first line\n<\/textarea>/);
      const plain = await composeForm(client, `_reply_uid=${uid}`);
      assert.equal(field(plain, '_to'), sender);
      assert.equal(field(plain, '_cc'), '');
    });

    it('does not double "Re:" on a reply-all to a reply', async () => {
      const { client, uid } = await delivered('RE: already', 'y');
      assert.equal(field(await composeForm(client, `_reply_uid=${uid}&_reply_mode=all`), '_subject'), 'RE: already');
    });

    it('forwards inline: "Fwd:" subject, no recipients, the original headers block and body; it sends', async () => {
      const { client, uid, sender, reader, other, copy } = await delivered('minutes', 'point one\npoint two');
      const form = await composeForm(client, `_forward_uid=${uid}&_tz=Europe/Berlin`);
      assert.equal(field(form, '_subject'), 'Fwd: minutes');
      assert.equal(field(form, '_to'), '');
      const block = `-------- Original Message --------\nSubject: minutes\nDate: [^\\n]+ at \\d\\d:\\d\\d\nFrom: ${sender}\nTo: ${reader}, ${other}\nCc: ${copy}\n\npoint one\npoint two`;
      assert.match(form, new RegExp(`>\\n\\n\\n\\n${block}`));
      const id = /name="_id" value="([^"]+)"/.exec(form)![1]!;
      const sent = await client.post(sendUri, { _id: id, _token: client.requestToken, _to: sender, _cc: '', _subject: 'Fwd: minutes', _body: 'fyi' });
      assert.equal(sent.status, 200);
      assert.match((await client.get('/webmail/?_task=mail&_mbox=Sent')).text, /Fwd: minutes/);
      const again = await delivered('Fwd: old', 'z');
      assert.equal(field(await composeForm(again.client, `_forward_uid=${again.uid}`), '_subject'), 'Fwd: old');
    });

    it('falls back to an empty message for a forward of an unknown or malformed uid', async () => {
      const { client } = await delivered('nothing', 'z');
      for (const uid of ['999999', '-1', 'abc', '99999999999']) {
        const form = await composeForm(client, `_forward_uid=${uid}`);
        assert.equal(field(form, '_subject'), '', uid);
      }
    });
  });
