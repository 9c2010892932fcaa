import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';
const at = (user: { username: string }) => `${user.username}@localhost`.toLowerCase();
const uids = async (client: WebmailClient, mbox: string) =>
  [...(await client.get(`/webmail/?_task=mail&_mbox=${mbox}`)).text.matchAll(/<tr[^>]*data-uid="(\d+)"/g)].map((m) => m[1]!);

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail drafts, ${setting.name}`, function () {
    this.timeout(120_000);
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    async function signedIn(prefix: string) {
      const user = await server.account(prefix);
      const client = new WebmailClient(server.baseUrl);
      await client.login(user.username, user.password);
      return { user, client };
    }

    it('saves a draft to Drafts, replaces it on the next save, resumes it with its files, and sending removes it', async () => {
      const { client } = await signedIn('dr');
      const { user: reader, client: readerClient } = await signedIn('rd');
      const id = await client.compose();
      const form = new FormData();
      form.append('_attachments[]', new Blob(['plan ü'], { type: 'text/plain' }), 'plän.txt');
      assert.equal((await client.upload(`/webmail/?_task=mail&_action=upload&_id=${id}`, form, client.requestToken)).status, 200);
      const fields = { _id: id, _token: client.requestToken, _to: at(reader), _cc: '', _body: 'first words', _draft: '1' };
      assert.match((await client.post(sendUri, { ...fields, _subject: 'draft one' })).text, /Message saved to Drafts\./);
      const first = await uids(client, 'Drafts');
      assert.equal(first.length, 1);
      assert.match((await client.post(sendUri, { ...fields, _subject: 'draft two', _body: 'more words' })).text, /Message saved to Drafts\./);
      const second = await uids(client, 'Drafts');
      assert.equal(second.length, 1, 'the second save replaced the first');
      assert.notEqual(second[0], first[0]);
      const shown = (await client.get(`/webmail/?_task=mail&_action=show&_mbox=Drafts&_uid=${second[0]}`)).text;
      assert.match(shown, /draft two/);
      assert.match(shown, /id="edit-draft-button" href="[^"]*_draft_uid=\d+"/);

      const resumed = await client.get(`/webmail/?_task=mail&_action=compose&_draft_uid=${second[0]}`);
      assert.equal(resumed.status, 302);
      const page = (await client.get(resumed.headers.get('location')!)).text;
      assert.match(page, new RegExp(`name="_to"[^>]*value="${at(reader)}"`));
      assert.match(page, /name="_subject"[^>]*value="draft two"/);
      assert.match(page, /more words/);
      assert.match(page, /class="attachment-name">plän\.txt</);
      const resumedId = /name="_id" value="([^"]+)"/.exec(page)![1]!;
      const sent = await client.post(sendUri, { _id: resumedId, _token: client.requestToken, _to: at(reader), _cc: '', _subject: 'draft two', _body: 'final' });
      assert.match(sent.text, /Message sent/);
      assert.deepEqual(await uids(client, 'Drafts'), [], 'sending removed the draft');
      const [got] = await uids(readerClient, 'INBOX');
      const raw = (await readerClient.get(`/webmail/?_task=mail&_action=viewsource&_mbox=INBOX&_uid=${got}&_save=1`)).text;
      assert.match(raw, /filename\*0?\*?=utf-8''pl%C3%A4n\.txt/i);
      assert.match(raw, /Subject: draft two/);
    });

    it('needs the request token and an open compose ID; a draft of another user or none is a 404', async () => {
      const { client } = await signedIn('dt');
      const id = await client.compose();
      const refused = await client.post(sendUri, { _id: id, _token: 'y'.repeat(32), _to: '', _cc: '', _subject: 's', _body: 'b', _draft: '1' });
      assert.equal(refused.status, 403);
      const before = server.errorLines().length;
      const unknown = await client.post(sendUri, { _id: '99999', _token: client.requestToken, _to: '', _cc: '', _subject: 's', _body: 'b', _draft: '1' });
      assert.match(unknown.text, /An internal error occurred/);
      assert.match(server.errorLines().slice(before).join('\n'), /Invalid compose ID/);
      const bad = await client.post(sendUri, {
        _id: id,
        _token: client.requestToken,
        _to: 'erin@localhost\r\nBcc: evil@example.org',
        _cc: '',
        _subject: 's',
        _body: 'b',
        _draft: '1',
      });
      assert.match(bad.text, /Invalid e-mail address/);
      assert.deepEqual(await uids(client, 'Drafts'), []);
      assert.match(
        (await client.post(sendUri, { _id: id, _token: client.requestToken, _to: '', _cc: '', _subject: 'mine', _body: 'b', _draft: '1' })).text,
        /saved to Drafts/,
      );
      const [mine] = await uids(client, 'Drafts');
      const other = await signedIn('do');
      assert.equal((await other.client.get(`/webmail/?_task=mail&_action=compose&_draft_uid=${mine}`)).status, 404);
      assert.equal((await client.get('/webmail/?_task=mail&_action=compose&_draft_uid=4000000')).status, 404);
    });
  });
