import assert from 'node:assert/strict';
import { LOG_DATE, escapeRegex, linesOf } from '../support/log-lines.ts';
import { startFakeSmtp } from '../support/fake-smtp.ts';
import { WebmailClient } from '../support/webmail-client.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const SEND = '/webmail/?_task=mail&_action=send&_unlock=loading7&_framed=1';

describe('webmail relay through SMTP_URL', () => {
  let smtp: Awaited<ReturnType<typeof startFakeSmtp>>;
  let server: WebmailServer;
  before(async () => {
    smtp = await startFakeSmtp(/^refused@/);
    server = await startWebmailServer({ SMTP_URL: smtp.url, MAIL_DOMAIN: 'mail.test' });
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });

  async function sender() {
    const user = await server.account('relay');
    const client = new WebmailClient(server.baseUrl);
    await client.login(user.username, user.password);
    return { user, client };
  }

  it('relays other domains over SMTP, delivers local ones directly, and files one Sent copy', async () => {
    const { user, client } = await sender();
    const local = await server.account('local');
    const answer = await client.post(SEND, {
      _id: await client.compose(),
      _token: client.requestToken,
      _to: `Far Away <far@example.org>, ${local.username}@mail.test`,
      _cc: 'copy@example.net',
      _subject: 'Über den Berg',
      _body: 'Grüße',
    });
    assert.match(answer.text, /Message sent successfully/);
    assert.equal(smtp.received.length, 1);
    const mail = smtp.received[0]!;
    assert.equal(mail.from, `${user.username}@mail.test`);
    assert.deepEqual([...mail.to].sort(), ['copy@example.net', 'far@example.org']);
    assert.match(mail.data, new RegExp(`^To: far@example\\.org, ${local.username}@mail\\.test$`, 'm'));
    assert.match(mail.data, /^Subject: =\?UTF-8\?/m);
    const reader = new WebmailClient(server.baseUrl);
    await reader.login(local.username, local.password);
    assert.match((await reader.get('/webmail/?_task=mail')).text, /Über den Berg/);
    assert.match((await client.get('/webmail/?_task=mail&_mbox=Sent')).text, /far@example\.org, [^<]*copy@example\.net/);
  });

  it('stores nothing and logs an SMTP error when the relay refuses a recipient', async () => {
    const { client } = await sender();
    const before = server.errorLines().length;
    const id = await client.compose();
    const answer = await client.post(SEND, { _id: id, _token: client.requestToken, _to: 'refused@example.org', _cc: '', _subject: 'lost?', _body: '' });
    assert.match(answer.text, /data-type="error" data-message="SMTP Error: [^"]*550[^"]*"/);
    const [line] = linesOf('src/webmail/actions/send-action.ts', "services.errors.raise(loggedRequest(request), outcome.message, 'SMTP')");
    const added = server.errorLines().slice(before);
    assert.equal(added.length, 1);
    assert.match(
      added[0]!,
      new RegExp(
        `^${LOG_DATE}<${client.sessionId().slice(0, 8)}> SMTP Error: .*550.* in src/webmail/actions/send-action\\.ts on line ${line} \\(POST ${escapeRegex(SEND)}\\)$`,
      ),
    );
    assert.doesNotMatch((await client.get('/webmail/?_task=mail&_mbox=Sent')).text, /lost\?/);
    assert.match(
      (await client.post(SEND, { _id: id, _token: client.requestToken, _to: 'fine@example.org', _cc: '', _subject: 'retry', _body: '' })).text,
      /Message sent successfully/,
    );
  });

  it('suggests past correspondents to the account that wrote to them, and to no one else', async () => {
    const { client } = await sender();
    const other = await sender();
    await client.post(SEND, {
      _id: await client.compose(),
      _token: client.requestToken,
      _to: 'private.contact@example.org',
      _cc: '',
      _subject: 's',
      _body: '',
    });
    const search = (who: WebmailClient) => who.ajax('/webmail/?_task=mail&_action=autocomplete', { _search: 'private', _reqid: '5' });
    assert.match((await search(client)).json().exec, /"email":"private\.contact@example\.org"/);
    assert.equal((await search(other.client)).json().exec, 'this.ksearch_query_results([],"private","5");\n');
  });
});
