import assert from 'node:assert/strict';
import { securityCheckLine } from '../support/log-lines.ts';
import type { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { webmailOnAdapter } from '../support/webmail-on-adapter.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1';
const rowsOf = (page: string) =>
  [...page.matchAll(/<tr data-uid="(\d+)"[\s\S]*?<td class="subject"><a [^>]*>([^<]*)<\/a>/g)].map((m) => ({ uid: m[1]!, subject: m[2]! }));

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail delete or move several selected messages, ${setting.name}`, () => {
    const suite = webmailOnAdapter(setting);

    /** A fresh reader with `count` messages from a fresh sender; the reader's client and the inbox rows, newest first. */
    async function inbox(count: number) {
      const sender = await suite.signedIn(await suite.server.account('sender'));
      const reader = await suite.server.account('reader');
      for (let i = 1; i <= count; i += 1) {
        const form = { _id: await sender.compose(), _token: sender.requestToken, _to: `${reader.username}@localhost`, _cc: '', _subject: `m${i}`, _body: 'x' };
        assert.match((await sender.post(sendUri, form)).text, /Message sent successfully/);
      }
      const client = await suite.signedIn(reader);
      return { client, rows: rowsOf((await client.get('/webmail/?_task=mail')).text) };
    }
    const folder = async (client: WebmailClient, mbox: string) =>
      rowsOf((await client.get(`/webmail/?_task=mail&_mbox=${mbox}`)).text).map((row) => row.subject);
    const trashOf = async (client: WebmailClient) =>
      /href="\/webmail\/\?_task=mail&amp;_mbox=([^"]+)">Trash</.exec((await client.get('/webmail/?_task=mail')).text)![1]!;

    it('deletes the selected messages to Trash in one request (Roundcube `_uid=1,2`), the others stay', async () => {
      const { client, rows } = await inbox(3);
      const answer = await client.post('/webmail/?_task=mail', {
        _token: client.requestToken,
        _action: 'delete',
        _mbox: 'INBOX',
        _uid: `${rows[0]!.uid},${rows[2]!.uid}`,
      });
      assert.equal(answer.status, 302);
      assert.match(answer.headers.get('location')!, /_mbox=INBOX&_deleted=1$/);
      assert.deepEqual(await folder(client, 'INBOX'), ['m2']);
      assert.deepEqual(await folder(client, await trashOf(client)), ['m3', 'm1']);
    });

    it('moves the selected messages to another folder, and back', async () => {
      const { client, rows } = await inbox(3);
      const trash = await trashOf(client);
      const moved = await client.post('/webmail/?_task=mail', {
        _token: client.requestToken,
        _action: 'move',
        _mbox: 'INBOX',
        _target_mbox: decodeURIComponent(trash),
        _uid: `${rows[1]!.uid},${rows[2]!.uid}`,
      });
      assert.equal(moved.status, 302);
      assert.match(moved.headers.get('location')!, /_moved=1$/);
      assert.match((await client.get(moved.headers.get('location')!)).text, /Message\(s\) moved successfully\./);
      assert.deepEqual(await folder(client, 'INBOX'), ['m3']);
      const inTrash = rowsOf((await client.get(`/webmail/?_task=mail&_mbox=${trash}`)).text);
      assert.deepEqual(
        inTrash.map((row) => row.subject),
        ['m2', 'm1'],
      );
      await client.post('/webmail/?_task=mail', {
        _token: client.requestToken,
        _action: 'move',
        _mbox: decodeURIComponent(trash),
        _target_mbox: 'INBOX',
        _uid: inTrash.map((row) => row.uid).join(','),
      });
      assert.deepEqual((await folder(client, 'INBOX')).sort(), ['m1', 'm2', 'm3']);
    });

    it('refuses more than 100 uids, a malformed list, an unknown or the same target: 400, nothing moved', async () => {
      const { client, rows } = await inbox(1);
      const uid = rows[0]!.uid;
      const post = (fields: Record<string, string>) => client.post('/webmail/?_task=mail', { _token: client.requestToken, _mbox: 'INBOX', ...fields });
      const hundred = [uid, ...Array.from({ length: 99 }, (_, i) => String(900_000 + i))];
      for (const fields of <Record<string, string>[]>[
        { _action: 'delete', _uid: [...hundred, '999999'].join(',') },
        { _action: 'delete', _uid: `${uid},` },
        { _action: 'delete', _uid: `${uid},x` },
        { _action: 'delete', _uid: '' },
        { _action: 'move', _uid: uid, _target_mbox: 'Nowhere' },
        { _action: 'move', _uid: uid, _target_mbox: 'INBOX' },
        { _action: 'move', _uid: uid },
      ]) {
        const answer = await post(fields);
        assert.equal(answer.status, 400, JSON.stringify(fields).slice(0, 80));
      }
      assert.deepEqual(await folder(client, 'INBOX'), ['m1']);
      const atLimit = await post({ _action: 'delete', _uid: hundred.join(',') });
      assert.equal(atLimit.status, 302, 'a hundred uids, the existing one among them');
      assert.deepEqual(await folder(client, 'INBOX'), []);
    });

    it('refuses without the request token (403, Roundcube log line) and by GET; touches no other user’s mail', async () => {
      const { client, rows } = await inbox(2);
      const uids = rows.map((row) => row.uid).join(',');
      const before = suite.server.errorLines().length;
      const forged = await client.post('/webmail/?_task=mail', { _token: 'WRONGWRONGWRONGWRONGWRONGWRONG12', _action: 'delete', _mbox: 'INBOX', _uid: uids });
      assert.equal(forged.status, 403);
      const added = suite.server.errorLines().slice(before);
      assert.equal(added.length, 1);
      assert.match(added[0]!, securityCheckLine(client.sessionId(), 'POST', '/webmail/?_task=mail&_action=delete'));
      assert.equal((await client.get(`/webmail/?_task=mail&_action=delete&_mbox=INBOX&_uid=${uids}`)).status, 404);
      const stranger = await suite.signedIn(await suite.server.account('stranger'));
      const theirs = await stranger.post('/webmail/?_task=mail', { _token: stranger.requestToken, _action: 'delete', _mbox: 'INBOX', _uid: uids });
      assert.equal(theirs.status, 404);
      assert.deepEqual(await folder(client, 'INBOX'), ['m2', 'm1']);
    });
  });
