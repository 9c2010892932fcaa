import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';
import { UPLOAD_LIMITS } from '../../src/webmail/actions/upload-limits.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';
const uploadUri = (id: string) => `/webmail/?_task=mail&_action=upload&_id=${id}&_uploadid=upload1&_unlock=loading1`;
const at = (user: { username: string }) => `${user.username}@localhost`.toLowerCase();
const newestUid = async (client: WebmailClient, mbox = 'INBOX') => /data-uid="(\d+)"/.exec((await client.get(`/webmail/?_task=mail&_mbox=${mbox}`)).text)?.[1];
const source = async (client: WebmailClient, mbox: string) =>
  (await client.get(`/webmail/?_task=mail&_action=viewsource&_mbox=${mbox}&_uid=${await newestUid(client, mbox)}&_save=1`)).text;
const formOf = (files: readonly [string, string, Buffer | string][], fields: readonly [string, string][] = []) => {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  for (const [filename, type, content] of files)
    form.append('_attachments[]', new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type }), filename);
  return form;
};
/** The MIME part whose headers name `filename` (as nodemailer writes it, plain or RFC 2231): its headers and decoded body. */
function partNamed(raw: string, header: RegExp): { headers: string; body: Buffer } | undefined {
  const boundary = /boundary="?([^"\r\n;]+)"?/.exec(raw)?.[1];
  const part = raw.split(`\r\n--${boundary}`).find((piece) => header.test(piece.slice(0, piece.indexOf('\r\n\r\n', 2))));
  if (!part) return undefined;
  const split = part.indexOf('\r\n\r\n');
  return { headers: part.slice(0, split), body: Buffer.from(part.slice(split + 4).replace(/\s+/g, ''), 'base64') };
}

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail attachments when composing, ${setting.name}`, function () {
    this.timeout(120_000);
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    async function composing() {
      const user = await server.account('up');
      const client = new WebmailClient(server.baseUrl);
      await client.login(user.username, user.password);
      return { client, user, id: await client.compose() };
    }
    const listed = async (client: WebmailClient, id: string) =>
      [...(await client.get(`/webmail/?_task=mail&_action=compose&_id=${id}`)).text.matchAll(/class="attachment-name">([^<]*)</g)].map((m) => m[1]);

    it('shows the limits on the form, uploads files, removes one, and sends the rest as base64 MIME parts that arrive and are in Sent', async () => {
      const { client, id } = await composing();
      const page = (await client.get(`/webmail/?_task=mail&_action=compose&_id=${id}`)).text;
      assert.match(page, /id="upload-limit">Maximum allowed file size is 2\.0 MB\. At most 4\.0 MB and 20 files in all\.</);
      const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 255, 13, 10, 0x80, 7]);
      const answer = await client.upload(
        uploadUri(id),
        formOf([
          ['résumé 2026.pdf', 'application/pdf', pdf],
          ['notes.txt', 'text/plain', 'line one\nline two ü\n'],
          ['drop me.bin', 'application/octet-stream', 'x'],
        ]),
        client.requestToken,
      );
      assert.equal(answer.status, 200, answer.text);
      const exec = answer.json().exec;
      assert.match(
        exec,
        /^this\.add2attachment_list\(\{"id":"rcmfile[0-9a-f]{16}","name":"résumé 2026\.pdf","size":"10 B","type":"application\/pdf"\},"upload1"\);$/m,
      );
      assert.deepEqual(await listed(client, id), ['résumé 2026.pdf', 'notes.txt', 'drop me.bin']);
      const dropped = /"id":"(rcmfile[0-9a-f]+)","name":"drop me\.bin"/.exec(exec)![1]!;
      const removed = await client.ajax('/webmail/?_task=mail&_action=remove-attachment', { _id: id, _file: dropped });
      assert.equal(removed.json().exec, `this.remove_from_attachment_list("${dropped}");\n`);
      assert.equal((await client.ajax('/webmail/?_task=mail&_action=remove-attachment', { _id: id, _file: dropped })).status, 404, 'gone already');
      assert.deepEqual(await listed(client, id), ['résumé 2026.pdf', 'notes.txt']);

      const reader = await server.account('rd');
      const sent = await client.post(sendUri, { _id: id, _token: client.requestToken, _to: at(reader), _cc: '', _subject: 'files', _body: 'attached' });
      assert.match(sent.text, /Message sent/);
      const readerClient = new WebmailClient(server.baseUrl);
      await readerClient.login(reader.username, reader.password);
      for (const raw of [await source(readerClient, 'INBOX'), await source(client, 'Sent')]) {
        const pdfPart = partNamed(raw, /Content-Disposition: attachment;\s+filename\*0?\*?=utf-8''r%C3%A9sum%C3%A9/i);
        assert.ok(pdfPart, raw.slice(0, 3000));
        assert.match(pdfPart.headers, /Content-Type: application\/pdf/);
        assert.match(pdfPart.headers, /Content-Transfer-Encoding: base64/);
        assert.deepEqual(pdfPart.body, pdf);
        const text = partNamed(raw, /filename="?notes\.txt"?/);
        assert.match(text!.headers, /Content-Type: text\/plain[\s\S]*Content-Transfer-Encoding: base64/);
        assert.equal(text!.body.toString('utf8'), 'line one\nline two ü\n');
        assert.doesNotMatch(raw, /drop me\.bin/);
      }
      const shown = (await readerClient.get(`/webmail/?_task=mail&_action=show&_mbox=INBOX&_uid=${await newestUid(readerClient)}`)).text;
      assert.match(shown, /résumé 2026\.pdf/);
      assert.match(shown, /notes\.txt/);
    });

    it('needs the request token (the XHR header, or a _token field before the files) and a compose ID of the session', async () => {
      const { client, id } = await composing();
      const before = server.errorLines().length;
      const refused = await client.upload(uploadUri(id), formOf([['a.txt', 'text/plain', 'a']]));
      assert.equal(refused.status, 403);
      assert.match(server.errorLines().slice(before).join('\n'), /Request security check failed .*\(POST \/webmail\/\?_task=mail&_action=upload/);
      assert.equal((await client.upload(uploadUri(id), formOf([['a.txt', 'text/plain', 'a']]), 'x'.repeat(32))).status, 403);
      const late = formOf([['late.txt', 'text/plain', 'a']]);
      late.append('_token', client.requestToken);
      assert.equal((await client.upload(uploadUri(id), late)).status, 403, 'a token after the file comes too late');
      assert.deepEqual(await listed(client, id), []);
      const plain = await client.upload(uploadUri(id), formOf([['form.txt', 'text/plain', 'f']], [['_token', client.requestToken]]));
      assert.equal(plain.status, 303);
      assert.equal(plain.headers.get('location'), `/webmail/?_task=mail&_action=compose&_id=${id}`);
      assert.deepEqual(await listed(client, id), ['form.txt']);
      const other = await composing();
      const stranger = await other.client.upload(uploadUri(id), formOf([['x.txt', 'text/plain', 'x']]), other.client.requestToken);
      assert.equal(stranger.status, 400);
      assert.match(stranger.json().exec, /display_message\("Invalid session var!","error",0\)/);
      assert.deepEqual(await listed(client, id), ['form.txt'], "another session's upload is not this compose ID's");
      const notMultipart = await client.ajax(uploadUri(id), { _attachments: 'x' });
      assert.equal(notMultipart.status, 400);
      assert.match(notMultipart.json().exec, /File upload failed\./);
    });

    it('refuses a file past the size limit with a JSON 413, cutting the upload off long before its end', async () => {
      const { client, id } = await composing();
      const big = await client.upload(
        uploadUri(id),
        formOf([['big.bin', 'application/octet-stream', Buffer.alloc(UPLOAD_LIMITS.fileBytes + 1)]]),
        client.requestToken,
      );
      assert.equal(big.status, 413);
      assert.match(
        big.json().exec,
        /display_message\("The uploaded file exceeds the maximum size of 2\.0 MB\.","error",0\);\nthis\.remove_from_attachment_list\("upload1"\)/,
      );
      assert.deepEqual(await listed(client, id), []);

      // A body announcing 512 MB: the answer must come while the client is still writing.
      const declared = 512 * 1024 * 1024;
      const boundary = 'cut0ff';
      const url = new URL(server.baseUrl + uploadUri(id));
      const written = await new Promise<{ status: number; written: number }>((resolve, reject) => {
        let sent = 0;
        const outgoing = httpRequest(url, {
          method: 'POST',
          headers: {
            cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; '),
            'x-roundcube-request': client.requestToken,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': declared,
          },
        });
        outgoing.on('response', (response) => {
          response.resume();
          resolve({ status: response.statusCode!, written: sent });
          outgoing.destroy();
        });
        outgoing.on('error', (error) => (sent < declared ? resolve({ status: -1, written: sent }) : reject(error)));
        outgoing.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="_attachments[]"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        );
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (sent < declared && outgoing.write(chunk)) sent += chunk.length;
          if (sent < declared) outgoing.once('drain', pump);
        };
        pump();
      });
      assert.equal(written.status, 413);
      assert.ok(written.written < 64 * 1024 * 1024, `the server answered after ${written.written} bytes of ${declared}`);
      assert.deepEqual(await listed(client, id), []);
    });

    it('holds the compose ID to its total size across uploads', async () => {
      const { client, id } = await composing();
      const half = Buffer.alloc(UPLOAD_LIMITS.fileBytes, 'h');
      for (const name of ['one', 'two'])
        assert.equal((await client.upload(uploadUri(id), formOf([[name, 'application/octet-stream', half]]), client.requestToken)).status, 200);
      const third = await client.upload(uploadUri(id), formOf([['three', 'application/octet-stream', 'x']]), client.requestToken);
      assert.equal(third.status, 413);
      assert.match(third.json().exec, /The attachments exceed the maximum size of 4\.0 MB in all\./);
      assert.deepEqual(await listed(client, id), ['one', 'two']);
    });

    it('survives hostile uploads: __proto__ names, ../ and control characters, a 10,000-character name, 1,000 files, an empty file', async () => {
      const { client, id } = await composing();
      const form = formOf(
        [
          ['../../etc/passwd', 'text/plain', 'p'],
          ['C:\\Users\\evil\\..\\bad\u0000\u0007\u001b\u007f\u0085na\r\nme.txt', '__proto__/x"; bad', 'c'],
          [`${'n'.repeat(10_000)}.pdf`, 'application/pdf', 'l'],
          ['empty.txt', 'text/plain', ''],
        ],
        [
          ['_token', client.requestToken],
          ['__proto__', '{"polluted":true}'],
          ['constructor', 'x'],
        ],
      );
      form.append('__proto__', new Blob(['proto file'], { type: 'text/plain' }), '__proto__');
      const answer = await client.upload(uploadUri(id), form);
      assert.equal(answer.status, 303, answer.text);
      const names = await listed(client, id);
      // A browser's FormData writes CR and LF in a filename as %0D and %0A; the other control characters come as they are.
      assert.deepEqual(names.slice(0, 2), ['passwd', 'badna%0D%0Ame.txt']);
      assert.equal(names[2], `${'n'.repeat(UPLOAD_LIMITS.filenameChars - 4)}.pdf`);
      assert.deepEqual(names.slice(3), ['empty.txt', '__proto__']);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      const many = formOf(Array.from({ length: 1000 }, (_, i) => [`f${i}.txt`, 'text/plain', 'x'] as [string, string, string]));
      const tooMany = await client.upload(uploadUri(id), many, client.requestToken);
      assert.equal(tooMany.status, 413);
      assert.match(tooMany.json().exec, /At most 20 files can be attached to one message\./);
      assert.equal((await listed(client, id)).length, 5, 'nothing of the 1,000 was kept');

      const reader = await server.account('hx');
      const sent = await client.post(sendUri, { _id: id, _token: client.requestToken, _to: at(reader), _cc: '', _subject: 'hostile', _body: '' });
      assert.match(sent.text, /Message sent/);
      const raw = await source(client, 'Sent');
      assert.doesNotMatch(raw, /\.\.\/|etc\/passwd/);
      assert.ok(!raw.includes('\u0000') && !raw.includes('\u001b'));
      assert.ok(partNamed(raw, /filename="?empty\.txt"?/), 'the empty file is sent as an empty part');
    });
  });
