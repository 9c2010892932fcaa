import assert from 'node:assert/strict';
import { securityCheckLine } from '../support/log-lines.ts';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

const AUTOCOMPLETE = '/webmail/?_task=mail&_action=autocomplete';
const REFRESH = '/webmail/?_task=mail&_action=refresh';
const WRONG = 'WRONGWRONGWRONGWRONGWRONGWRONG12';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail request token (Request security check failed), ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    async function loggedIn(): Promise<WebmailClient> {
      const user = await server.account('sec');
      const client = new WebmailClient(server.baseUrl);
      assert.equal((await client.login(user.username, user.password)).status, 302);
      return client;
    }

    /** The last errors.log line, and that exactly one line was added by `act`. */
    async function oneNewErrorLine(act: () => Promise<unknown>): Promise<string> {
      const before = server.errorLines().length;
      await act();
      const added = server.errorLines().slice(before);
      assert.equal(added.length, 1, added.join('\n'));
      return added[0]!;
    }

    for (const [name, path, form] of [
      ['autocomplete', AUTOCOMPLETE, { _search: 'sec', _reqid: '1' }],
      ['refresh', REFRESH, { _mbox: 'INBOX', _list: '1', _folderlist: '1' }],
    ] as const) {
      describe(`POST ${name}`, () => {
        it('answers with the X-Roundcube-Request header or the _token field', async () => {
          const client = await loggedIn();
          const viaHeader = await client.ajax(path, form);
          assert.equal(viaHeader.status, 200);
          assert.match(viaHeader.headers.get('content-type') ?? '', /^application\/json/);
          assert.equal(viaHeader.json().action, name);
          assert.equal((await client.post(path, { ...form, _token: client.requestToken })).status, 200);
        });

        it('refuses an XHR with a wrong token: 403 "Invalid Request" and the log line', async () => {
          const client = await loggedIn();
          let answer: Awaited<ReturnType<WebmailClient['ajax']>> | undefined;
          const line = await oneNewErrorLine(async () => {
            answer = await client.ajax(path, form, WRONG);
          });
          assert.equal(answer!.status, 403);
          assert.equal(answer!.text, 'Invalid Request');
          assert.equal(answer!.headers.get('x-frame-options'), 'sameorigin');
          assert.match(line, securityCheckLine(client.sessionId(), 'POST', path));
        });

        it('refuses a POST without any token: the 403 error page and the log line', async () => {
          const client = await loggedIn();
          let answer: Awaited<ReturnType<WebmailClient['post']>> | undefined;
          const line = await oneNewErrorLine(async () => {
            answer = await client.post(path, form);
          });
          assert.equal(answer!.status, 403);
          assert.match(answer!.text, /<h3 class="error-title">REQUEST CHECK FAILED<\/h3>/);
          assert.match(answer!.text, /<a href="\/webmail\/\?_task=login">Back to the login page<\/a>/);
          assert.match(answer!.text, /secured against CSRF/);
          assert.match(line, securityCheckLine(client.sessionId(), 'POST', path));
        });
      });
    }

    describe('GET logout', () => {
      for (const [name, path] of [
        ['no token', '/webmail/?_task=logout'],
        ['a wrong token', `/webmail/?_task=logout&_token=${WRONG}`],
      ] as const) {
        it(`with ${name}: 403 page, the log line, and the user stays logged in`, async () => {
          const client = await loggedIn();
          let status = 0;
          const line = await oneNewErrorLine(async () => {
            status = (await client.get(path)).status;
          });
          assert.equal(status, 403);
          // The URI is logged as Roundcube logs it, but never with the request token it carried.
          assert.match(line, securityCheckLine(client.sessionId(), 'GET', path.replace(/_token=[^&]*/, '_token=***')));
          assert.ok(!line.includes(WRONG), line);
          assert.equal((await client.ajax(REFRESH, { _mbox: 'INBOX' })).status, 200);
        });
      }

      it('refuses a POST logout with a wrong _token, logging the POST', async () => {
        const client = await loggedIn();
        const line = await oneNewErrorLine(() => client.post('/webmail/?_task=logout', { _token: WRONG }));
        assert.match(line, securityCheckLine(client.sessionId(), 'POST', '/webmail/?_task=logout'));
      });

      it('with the request token: the login page says goodbye, the auth cookie is deleted, the session is gone', async () => {
        const client = await loggedIn();
        const cookies = new Map(client.cookies);
        const errorsBefore = server.errorLines().length;
        const answer = await client.get(`/webmail/?_task=logout&_token=${client.requestToken}`);
        assert.equal(answer.status, 200);
        assert.match(answer.text, /You have successfully terminated the session\. Goodbye!/);
        assert.ok(answer.headers.getSetCookie().some((line) => /^roundcube_sessauth=-del-; path=\/webmail\/; expires=/.test(line)));
        const stale = new WebmailClient(server.baseUrl);
        for (const [name, value] of cookies) stale.cookies.set(name, value);
        const afterwards = await stale.ajax(REFRESH, { _mbox: 'INBOX' }, client.requestToken);
        assert.match(afterwards.json().exec, /this\.session_error\("\/webmail\/\?_task=login&_err=session"\);/);
        assert.equal(server.errorLines().length, errorsBefore);
      });
    });

    it('appends _task and _action sent in the body to the logged URI, as Roundcube does', async () => {
      const client = await loggedIn();
      const uri = '/webmail/?_task=mail&_unlock=loading1795330299998&_framed=1';
      const line = await oneNewErrorLine(() => client.post(uri, { _action: 'send', _id: '1', _token: WRONG }));
      assert.match(line, securityCheckLine(client.sessionId(), 'POST', `${uri}&_action=send`));
    });

    it('keeps one token per session and makes a new one at each login', async () => {
      const user = await server.account('tok');
      const first = new WebmailClient(server.baseUrl);
      await first.login(user.username, user.password);
      const again = /data-request-token="(\w+)"/.exec((await first.get('/webmail/?_task=mail&_mbox=Sent')).text)?.[1];
      assert.equal(again, first.requestToken);
      const second = new WebmailClient(server.baseUrl);
      await second.login(user.username, user.password);
      assert.notEqual(second.requestToken, first.requestToken);
      assert.equal((await first.ajax(REFRESH, { _mbox: 'INBOX' }, second.requestToken)).status, 403);
    });
  });
