import assert from 'node:assert/strict';
import { invalidComposeLine, securityCheckLine } from '../support/log-lines.ts';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const sendUri = (unlock: string) => `/webmail/?_task=mail&_action=send&_unlock=${unlock}&_framed=1`;

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail compose and send, ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    /** Local recipients checked before sending and the local store's restart are the local adapter's own. */
    function localOnly(context: Mocha.Context): void {
      if (setting.name === 'local accounts') return;
      console.log('      skipped: a check of the local mail store (with IMAP, the submission server judges recipients)');
      context.skip();
    }

    async function pair() {
      const sender = await server.account('from');
      const recipient = await server.account('to');
      const client = new WebmailClient(server.baseUrl);
      await client.login(sender.username, sender.password);
      return { sender, recipient, client, to: `${recipient.username}@localhost` };
    }

    function send(client: WebmailClient, id: string, fields: Record<string, string>, unlock = 'loading1795330299999') {
      return client.post(sendUri(unlock), { _id: id, _token: client.requestToken, _to: '', _cc: '', _subject: '', _body: '', ...fields });
    }

    async function inbox(user: { username: string; password: string }, folder = 'INBOX'): Promise<string> {
      const client = new WebmailClient(server.baseUrl);
      await client.login(user.username, user.password);
      return (await client.get(`/webmail/?_task=mail&_mbox=${folder}`)).text;
    }

    it('makes a compose ID on GET compose and redirects to it; the form carries _id and _token', async () => {
      const { client } = await pair();
      const answer = await client.get('/webmail/?_task=mail&_action=compose');
      assert.equal(answer.status, 302);
      const id = /^\/webmail\/\?_task=mail&_action=compose&_id=([0-9]+[0-9a-f]{13})$/.exec(answer.headers.get('location') ?? '')?.[1];
      assert.ok(id, answer.headers.get('location') ?? '');
      const form = await client.get(answer.headers.get('location')!);
      assert.equal(form.status, 200);
      assert.match(form.text, new RegExp(`<input type="hidden" name="_id" value="${id}">`));
      assert.match(form.text, new RegExp(`<input type="hidden" name="_token" value="${client.requestToken}">`));
    });

    it('answers an unknown compose ID on the form with 450 "compose session error", unlogged', async () => {
      const { client } = await pair();
      const before = server.errorLines().length;
      const answer = await client.get('/webmail/?_task=mail&_action=compose&_id=123abc');
      assert.equal(answer.status, 450);
      assert.match(answer.text, /COMPOSE SESSION ERROR/);
      assert.match(answer.text, /Click here to compose a new message/);
      assert.equal(server.errorLines().length, before);
    });

    it('sends: the framed page confirms, the recipient has it in INBOX and the sender in Sent', async () => {
      const { sender, recipient, client, to } = await pair();
      const answer = await send(client, await client.compose(), { _to: to, _subject: 'Quarterly <report>', _body: 'Numbers & words' });
      assert.equal(answer.status, 200);
      assert.match(answer.text, /data-unlock="loading1795330299999" data-type="confirmation" data-message="Message sent successfully\."/);
      assert.match(await inbox(recipient), /Quarterly &lt;report&gt;/);
      assert.match(await inbox(sender, 'Sent'), new RegExp(`${to}</td>\\s*<td class="subject"><a [^>]+>Quarterly &lt;report&gt;`));
    });

    it('refuses a used compose ID: "Invalid compose ID" logged, the internal-error page, nothing sent twice', async () => {
      const { recipient, client, to } = await pair();
      const id = await client.compose();
      assert.match((await send(client, id, { _to: to, _subject: 'once' })).text, /Message sent successfully/);
      const before = server.errorLines().length;
      const again = await send(client, id, { _to: to, _subject: 'once' }, 'loading2');
      assert.equal(again.status, 200);
      assert.match(again.text, /data-unlock="loading2" data-type="error" data-message="An internal error occurred\. Please try again\."/);
      const lines = server.errorLines().slice(before);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, invalidComposeLine(client.sessionId(), sendUri('loading2')));
      assert.equal((await inbox(recipient)).match(/>once</g)?.length, 1);
    });

    it("refuses an unknown compose ID and another session's, logging each", async () => {
      const { client, to } = await pair();
      const other = await pair();
      const foreign = await other.client.compose();
      for (const id of ['99999999999abcdef', foreign, '']) {
        const before = server.errorLines().length;
        const answer = await send(client, id, { _to: to });
        assert.match(answer.text, /An internal error occurred/);
        assert.match(server.errorLines().slice(before).join('\n'), invalidComposeLine(client.sessionId(), sendUri('loading1795330299999')));
      }
      assert.match((await send(other.client, foreign, { _to: to })).text, /Message sent successfully/);
    });

    it('sends one message when the same compose ID is posted twice at once', async () => {
      const { recipient, client, to } = await pair();
      const id = await client.compose();
      const answers = await Promise.all([send(client, id, { _to: to, _subject: 'twice?' }), send(client, id, { _to: to, _subject: 'twice?' })]);
      assert.equal(answers.filter((a) => /Message sent successfully/.test(a.text)).length, 1);
      assert.equal((await inbox(recipient)).match(/>twice\?</g)?.length, 1);
    });

    it('refuses a send with a wrong or missing token: 403 page, the log line, nothing sent, the ID still usable', async () => {
      const { recipient, client, to } = await pair();
      const id = await client.compose();
      for (const token of ['WRONGWRONGWRONGWRONGWRONGWRONG12', undefined]) {
        const before = server.errorLines().length;
        const form: Record<string, string> = { _id: id, _to: to, _cc: '', _subject: 'forged', _body: '' };
        if (token) form._token = token;
        const answer = await client.post(sendUri('loading3'), form);
        assert.equal(answer.status, 403);
        assert.match(answer.text, /REQUEST CHECK FAILED/);
        const added = server.errorLines().slice(before);
        assert.equal(added.length, 1);
        assert.match(added[0]!, securityCheckLine(client.sessionId(), 'POST', sendUri('loading3')));
      }
      assert.doesNotMatch(await inbox(recipient), /forged/);
      assert.match((await send(client, id, { _to: to, _subject: 'genuine' })).text, /Message sent successfully/);
    });

    it('refuses other domains without SMTP_URL, and unknown local mailboxes; the form can then be sent', async function () {
      localOnly(this);
      const { client, to } = await pair();
      const id = await client.compose();
      const outside = await send(client, id, { _to: `${to}, someone@example.com` });
      assert.match(outside.text, /Cannot send to someone@example\.com: this server delivers only to @localhost addresses \(no SMTP_URL is configured\)\./);
      assert.match((await send(client, id, { _to: 'ghost-user@localhost' })).text, /No mailbox for ghost-user@localhost\./);
      assert.match((await send(client, id, { _to: 'not an address' })).text, /Invalid e-mail address: not an address/);
      assert.match((await send(client, id, { _to: '' })).text, /Please enter at least one recipient\./);
      assert.match((await send(client, id, { _to: to })).text, /Message sent successfully/);
    });

    it('completes a bare username in To and Cc to the local address, as login accepts it', async function () {
      localOnly(this);
      const { sender, recipient, client } = await pair();
      const copy = await server.account('cc');
      const answer = await send(client, await client.compose(), { _to: recipient.username, _cc: `Copy <${copy.username}>`, _subject: 'bare names' });
      assert.match(answer.text, /Message sent successfully/);
      assert.match(await inbox(recipient), /bare names/);
      assert.match(await inbox(copy), /bare names/);
      assert.match(await inbox(sender, 'Sent'), new RegExp(`>${recipient.username}@localhost\\b`));
      assert.match((await send(client, await client.compose(), { _to: 'no-such-user' })).text, /No mailbox for no-such-user@localhost\./);
    });

    it('delivers to Cc too, and replies address the sender with a quoted body', async () => {
      const { recipient, client, to } = await pair();
      const copy = await server.account('cc');
      await send(client, await client.compose(), { _to: to, _cc: `${copy.username}@localhost`, _subject: 'with copy', _body: 'line' });
      assert.match(await inbox(copy), /with copy/);
      const reader = new WebmailClient(server.baseUrl);
      await reader.login(recipient.username, recipient.password);
      const uid = /data-uid="(\d+)"/.exec((await reader.get('/webmail/?_task=mail')).text)![1];
      const reply = await reader.get(`/webmail/?_task=mail&_action=compose&_reply_uid=${uid}&_mbox=INBOX`);
      const form = (await reader.get(reply.headers.get('location')!)).text;
      assert.match(form, /name="_subject" type="text" value="Re: with copy"/);
      assert.match(form, />\n\n\nOn [^<]+ wrote:\n&gt; line\n<\/textarea>/);
    });

    it('keeps sent mail across a restart', async function () {
      localOnly(this);
      const restartable = await startWebmailServer();
      const alice = await restartable.account('alice');
      const bob = await restartable.account('bob');
      const client = new WebmailClient(restartable.baseUrl);
      await client.login(alice.username, alice.password);
      await send(client, await client.compose(), { _to: `${bob.username}@localhost`, _subject: 'survives' });
      await restartable.close();
      const again = await startWebmailServer({}, restartable.dataDir);
      try {
        const reader = new WebmailClient(again.baseUrl);
        assert.equal((await reader.login(bob.username, bob.password)).status, 302);
        assert.match((await reader.get('/webmail/?_task=mail')).text, /survives/);
      } finally {
        await again.close();
      }
    });
  });
