import assert from 'node:assert/strict';
import { securityCheckLine } from '../support/log-lines.ts';
import type { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { webmailOnAdapter } from '../support/webmail-on-adapter.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';
const markUri = '/webmail/?_task=mail&_action=mark';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail mark read, unread, flagged, unflagged, ${setting.name}`, () => {
    const suite = webmailOnAdapter(setting);

    /** One message from a fresh sender to a fresh reader; the reader's client and the message's uid in INBOX. */
    async function delivered(subject: string) {
      const sender = await suite.server.account('from');
      const reader = await suite.server.account('to');
      const client = await suite.signedIn(sender);
      const id = await client.compose();
      await client.post(sendUri, { _id: id, _token: client.requestToken, _to: `${reader.username}@localhost`, _cc: '', _subject: subject, _body: 'text' });
      const readerClient = await suite.signedIn(reader);
      const uid = /data-uid="(\d+)"/.exec((await readerClient.get('/webmail/?_task=mail')).text)![1]!;
      return { client: readerClient, uid, reader };
    }

    /** The list row's class and what it tells a screen reader, read again from the server. */
    async function rowOf(client: WebmailClient, uid: string) {
      const list = (await client.get('/webmail/?_task=mail')).text;
      const row = new RegExp(`<tr data-uid="${uid}" class="([^"]*)">([\\s\\S]*?)</tr>`).exec(list)!;
      return { classes: row[1]!.split(' ').filter(Boolean).sort(), text: row[2]! };
    }

    const mark = (client: WebmailClient, uid: string, flag: string, token?: string) =>
      client.ajax(markUri, { _uid: uid, _flag: flag, _mbox: 'INBOX', _unlock: 'loading7' }, token);
    /** The commands the page script would run. */
    const execOf = (answer: { text: string }) => (JSON.parse(answer.text) as { exec: string }).exec;

    it('marks unread and read: kept by the server (IMAP \\Seen), shown in the list, with the unread count', async () => {
      const { client, uid } = await delivered('to be marked');
      assert.deepEqual((await rowOf(client, uid)).classes, ['unread']);
      await client.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${uid}`);
      assert.deepEqual((await rowOf(client, uid)).classes, []);
      const unread = await mark(client, uid, 'unread');
      assert.equal(unread.status, 200);
      const answer = JSON.parse(unread.text) as { action: string; unlock: string; exec: string };
      assert.equal(answer.action, 'mark');
      assert.equal(answer.unlock, 'loading7');
      assert.match(answer.exec, /this\.set_unread_count\("INBOX",1,true\);\n/);
      assert.match(answer.exec, new RegExp(`this\\.set_message_flag\\(${uid},"unread"\\);`));
      const row = await rowOf(client, uid);
      assert.deepEqual(row.classes, ['unread']);
      assert.match(row.text, /\(unread\)/);
      assert.match(execOf(await mark(client, uid, 'read')), /set_unread_count\("INBOX",0,true\)/);
      assert.deepEqual((await rowOf(client, uid)).classes, []);
    });

    it('flags and unflags: kept by the server (IMAP \\Flagged), shown in the list, the read state untouched', async () => {
      const { client, uid } = await delivered('to be flagged');
      const flagged = await mark(client, uid, 'flagged');
      assert.doesNotMatch(execOf(flagged), /set_unread_count/);
      let row = await rowOf(client, uid);
      assert.deepEqual(row.classes, ['flagged', 'unread']);
      assert.match(row.text, /\(flagged\)/);
      // The message page offers the opposite, from the stored flag.
      const page = (await client.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${uid}`)).text;
      assert.match(page, /data-flag="unflagged"[^>]*>Unflag</);
      await mark(client, uid, 'unflagged');
      row = await rowOf(client, uid);
      assert.deepEqual(row.classes, []);
      assert.doesNotMatch(row.text, /\(flagged\)/);
    });

    it('answers "Could not mark message." for a uid that is not there, and 400 for a malformed request', async () => {
      const { client, uid } = await delivered('bad input');
      const missing = await mark(client, '999999', 'flagged');
      assert.equal(missing.status, 200);
      assert.match(execOf(missing), /display_message\("Could not mark message\.","error",0\)/);
      for (const [badUid, flag] of [
        [uid, 'deleted'],
        [uid, ''],
        ['abc', 'read'],
        ['-1', 'read'],
        ['99999999999', 'read'],
      ] as const) {
        const answer = await mark(client, badUid, flag);
        assert.equal(answer.status, 400, `${badUid} ${flag}`);
        assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
      }
      assert.deepEqual((await rowOf(client, uid)).classes, ['unread']);
    });

    it('refuses a mark without the request token (403, Roundcube log line) and by GET; nothing changes', async () => {
      const { client, uid } = await delivered('forged mark');
      const before = suite.server.errorLines().length;
      const forged = await mark(client, uid, 'flagged', 'WRONGWRONGWRONGWRONGWRONGWRONG12');
      assert.equal(forged.status, 403);
      const added = suite.server.errorLines().slice(before);
      assert.equal(added.length, 1);
      assert.match(added[0]!, securityCheckLine(client.sessionId(), 'POST', markUri));
      assert.equal((await client.get(`${markUri}&_uid=${uid}&_flag=flagged&_mbox=INBOX`)).status, 404);
      assert.deepEqual((await rowOf(client, uid)).classes, ['unread']);
    });

    it("cannot mark another user's message", async () => {
      const { uid, client: owner } = await delivered('not yours');
      const stranger = await suite.signedIn(await suite.server.account('stranger'));
      await mark(stranger, uid, 'flagged');
      await mark(stranger, uid, 'read');
      assert.deepEqual((await rowOf(owner, uid)).classes, ['unread']);
    });
  });
