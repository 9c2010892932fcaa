import assert from 'node:assert/strict';
import { WebmailClient } from '../support/webmail-client.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import type { WebmailServer } from '../support/webmail-server.ts';
import { waitUntil } from '../support/wait-until.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1795330299999&_framed=1';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail recipients with control characters, ${setting.name}`, () => {
    let server: WebmailServer;
    before(async function () {
      this.timeout(60_000);
      server = await setting.start(this);
    });
    after(async () => {
      await server?.close();
    });

    async function folder(user: { username: string; password: string }, name = 'INBOX'): Promise<string> {
      const client = new WebmailClient(server.baseUrl);
      await client.login(user.username, user.password);
      return (await client.get(`/webmail/?_task=mail&_mbox=${name}`)).text;
    }

    // A header injection in To or Cc: before, addressparser read it as the injected address alone.
    const cases = [
      { field: '_to', hidden: (erin: string, mallory: string) => `${erin}\r\nBcc: ${mallory}`, shown: /\\r\\nBcc: / },
      { field: '_cc', hidden: (erin: string, mallory: string) => `${erin}\nBcc: ${mallory}`, shown: /\\nBcc: / },
      { field: '_to', hidden: (erin: string, mallory: string) => `${erin},\u0000${mallory}`, shown: /\\u0000/ },
      { field: '_cc', hidden: (erin: string, mallory: string) => `${erin}\u0085, ${mallory}`, shown: /\\u0085/ },
    ];
    for (const { field, hidden, shown } of cases)
      it(`refuses ${JSON.stringify(hidden('erin@localhost', 'mallory@localhost'))} in ${field} with a message, and sends nothing`, async () => {
        const [sender, erin, mallory] = [await server.account('from'), await server.account('erin'), await server.account('mallory')];
        const client = new WebmailClient(server.baseUrl);
        await client.login(sender.username, sender.password);
        const fields = {
          _to: '',
          _cc: '',
          _subject: 'injected',
          _body: 'should not go out',
          [field]: hidden(`${erin.username}@localhost`, `${mallory.username}@localhost`),
        };
        const answer = await client.post(sendUri, { _id: await client.compose(), _token: client.requestToken, ...fields });
        assert.equal(answer.status, 200);
        assert.match(answer.text, /data-type="error" data-message="Invalid e-mail address: [^"]*"/);
        assert.match(/data-message="([^"]*)"/.exec(answer.text)![1]!, shown);
        // A clean message sent afterwards marks that delivery is done: the refused one would have come first.
        const after = { _to: `${mallory.username}@localhost`, _cc: '', _subject: 'the clean one', _body: 'fine' };
        assert.match((await client.post(sendUri, { _id: await client.compose(), _token: client.requestToken, ...after })).text, /Message sent successfully/);
        await waitUntil(async () => (await folder(mallory)).includes('the clean one'), 'the clean message delivered');
        assert.doesNotMatch(await folder(mallory), /injected/);
        assert.doesNotMatch(await folder(erin), /injected/);
        assert.doesNotMatch(await folder(sender, 'Sent'), /injected/);
      });
  });
