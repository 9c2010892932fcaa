import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const REFRESH = '/webmail/?_task=mail&_action=refresh';
const AUTOCOMPLETE = '/webmail/?_task=mail&_action=autocomplete';

describe('webmail mailbox, refresh and autocomplete', () => {
  let server: WebmailServer;
  before(async () => {
    server = await startWebmailServer();
  });
  after(async () => {
    await server.close();
  });

  async function user(prefix: string) {
    const account = await server.account(prefix);
    const client = new WebmailClient(server.baseUrl);
    await client.login(account.username, account.password);
    return { ...account, client, address: `${account.username}@localhost` };
  }

  async function mail(from: WebmailClient, to: string, subject: string, body = '') {
    const answer = await from.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', {
      _id: await from.compose(),
      _token: from.requestToken,
      _to: to,
      _cc: '',
      _subject: subject,
      _body: body,
    });
    assert.match(answer.text, /Message sent successfully/);
  }

  it('refresh answers unread counts and the rows that arrived after the listed ones', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    assert.deepEqual((await bob.client.ajax(REFRESH, { _mbox: 'INBOX', _unlock: 'loading5' })).json(), { action: 'refresh', unlock: 'loading5', exec: '' });
    const empty = await bob.client.ajax(REFRESH, { _mbox: 'INBOX', _list: '1', _folderlist: '1', _uids: '' });
    assert.equal(empty.json().exec, 'this.set_unread_count("INBOX",0,true,"");\n');
    await mail(alice.client, bob.address, 'first <news>');
    const news = (await bob.client.ajax(REFRESH, { _mbox: 'INBOX', _list: '1', _folderlist: '1', _uids: '' })).json().exec.split('\n');
    assert.equal(news[0], 'this.set_unread_count("INBOX",1,true,"recent");');
    const row = /^this\.add_message_row\((\d+),(.*)\);$/.exec(news[1]!);
    assert.ok(row, news[1]);
    const [cols, flags, top] = JSON.parse(`[${row[2]}]`) as [Record<string, string>, Record<string, unknown>, boolean];
    assert.deepEqual(
      { fromto: cols.fromto, subject: cols.subject, flags, top },
      { fromto: alice.address, subject: 'first <news>', flags: { seen: false, flagged: false, mbox: 'INBOX' }, top: true },
    );
    const again = await bob.client.ajax(REFRESH, { _mbox: 'INBOX', _list: '1', _folderlist: '1', _uids: row[1]! });
    assert.equal(again.json().exec, 'this.set_unread_count("INBOX",1,true,"");\n');
    const sent = await alice.client.ajax(REFRESH, { _mbox: 'Sent', _list: '1', _uids: '' });
    assert.match(
      sent.json().exec,
      /^this\.set_unread_count\("INBOX",0,true,""\);\nthis\.set_unread_count\("Sent",0,false,""\);\nthis\.add_message_row\(\d+,\{"fromto":"bob/,
    );
  });

  it("shows a message as text, marks it read, and never shows another account's message", async () => {
    const carol = await user('carol');
    const dave = await user('dave');
    await mail(carol.client, dave.address, '<img src=x onerror=alert(1)>', '<b>bold</b> & <script>alert(1)</script>');
    const list = (await dave.client.get('/webmail/?_task=mail')).text;
    assert.match(list, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(list, /<img/);
    assert.match(list, /class="unreadcount" data-folder="INBOX">1</);
    const uid = /data-uid="(\d+)"/.exec(list)![1];
    const shown = await dave.client.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${uid}`);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /<pre class="message-body">&lt;b&gt;bold&lt;\/b&gt; &amp; &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/pre>/);
    assert.match((await dave.client.get('/webmail/?_task=mail')).text, /class="unreadcount" data-folder="INBOX"><\/span>/);
    assert.equal((await carol.client.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${uid}`)).status, 404);
  });

  it("autocompletes local accounts by prefix, in Roundcube's ksearch_query_results form", async () => {
    const erin = await user('erin');
    const target = await server.account('zoltan');
    const answer = await erin.client.ajax(AUTOCOMPLETE, { _search: target.username.slice(0, 7), _reqid: '1795330212999' });
    assert.equal(answer.json().action, 'autocomplete');
    assert.equal(
      answer.json().exec,
      `this.ksearch_query_results([{"name":"${target.username}@localhost","type":null,"id":"${target.id}","source":"accounts","fields":{"name":"","email":"${target.username}@localhost"}}],"${target.username.slice(0, 7)}","1795330212999");\n`,
    );
    const none = await erin.client.ajax(AUTOCOMPLETE, { _search: 'no-such-prefix', _reqid: '2' });
    assert.equal(none.json().exec, 'this.ksearch_query_results([],"no-such-prefix","2");\n');
  });

  it('answers keep-alive, redirects /webmail to /webmail/, and leaves other paths to the next middleware', async () => {
    const frank = await user('frank');
    assert.deepEqual((await frank.client.get('/webmail/?_task=mail&_action=keep-alive&_unlock=0')).json(), { action: 'keep-alive', exec: '' });
    const bare = await frank.client.get('/webmail?_task=mail');
    assert.equal(bare.status, 302);
    assert.equal(bare.headers.get('location'), '/webmail/?_task=mail');
    assert.equal((await frank.client.get('/webmail/nothing-here')).status, 404);
    assert.equal((await frank.client.get('/webmail/?_task=mail&_action=unknown')).status, 404);
    assert.equal((await frank.client.get('/api/v2/filters')).status, 418);
    const script = await frank.client.get('/webmail/static/webmail.js');
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
  });
});

describe('webmail sessions', () => {
  it('expire when idle: pages show the login form with a warning, XHRs get the session error, nothing is logged', async () => {
    let clock = Date.now();
    const server = await startWebmailServer({ WEBMAIL_IDLE_MINUTES: '1' }, undefined, { now: () => clock });
    try {
      const account = await server.account('idle');
      const client = new WebmailClient(server.baseUrl);
      await client.login(account.username, account.password);
      clock += 60_001; // a minute and a millisecond of idleness, without waiting for it
      const xhr = await client.ajax(REFRESH, { _mbox: 'INBOX', _list: '1' });
      assert.equal(xhr.status, 200);
      assert.deepEqual(xhr.json(), {
        action: 'refresh',
        exec: 'this.display_message("Your session is invalid or expired.","error",-1000);\nthis.session_error("/webmail/?_task=login&_err=session");\n',
      });
      const page = await client.get('/webmail/?_task=mail');
      assert.match(page.text, /Your session is invalid or expired\./);
      assert.match(page.text, /name="_user"/);
      assert.deepEqual(server.errorLines(), []);
    } finally {
      await server.close();
    }
  });

  it('end when the auth cookie does not match, so a session id alone is not enough', async () => {
    const server = await startWebmailServer();
    try {
      const account = await server.account('stolen');
      const client = new WebmailClient(server.baseUrl);
      await client.login(account.username, account.password);
      const thief = new WebmailClient(server.baseUrl);
      thief.cookies.set('roundcube_sessid', client.sessionId());
      thief.cookies.set('roundcube_sessauth', 'guessed');
      assert.match((await thief.get('/webmail/?_task=mail')).text, /Your session is invalid or expired\./);
      assert.match((await client.get('/webmail/?_task=mail')).text, /name="_user"/);
    } finally {
      await server.close();
    }
  });

  it('set Secure cookies when served over HTTPS (behind a proxy that says so)', async () => {
    const server = await startWebmailServer({}, undefined, { behindProxy: true });
    try {
      const page = await new WebmailClient(server.baseUrl).get('/webmail/', { 'x-forwarded-proto': 'https' });
      assert.match(page.headers.getSetCookie()[0]!, /; secure; httponly$/);
    } finally {
      await server.close();
    }
  });
});
