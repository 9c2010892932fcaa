import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { openAccountStore } from '../../src/stores.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { newLogin, type Login } from '../support/webmail-accounts.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const health = async (url: string) => (await fetch(`${url}/health`)).json() as Promise<{ leader: boolean }>;

/**
 * Issue 12 defect 2: with MONGODB_URL set, accounts and tokens, webmail sessions, compose IDs, mail and
 * the login counters live in MongoDB, so API processes share them without sharing a disk for them. Here
 * MongoDB is the wire-protocol STAND-IN (mockupdb + mongomock, not a server), serving four processes at
 * once; the events stay in SQLite on the shared DATA_DIR.
 */
describe('Two API processes and two projectors sharing accounts, sessions and rate limits through MongoDB (stand-in)', function () {
  this.timeout(240_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  const processes: NodeProcess[] = [];
  let dir: string;
  let mongodbUrl: string;
  let urls: [string, string];
  let projectors: [NodeProcess, NodeProcess];
  let owner: { accountId: string; token: string };
  let alice: Login;

  before(async function () {
    if (missing) {
      console.log(`    (skipped: the MongoDB stand-in cannot run: ${missing})`);
      this.skip();
    }
    dir = scratchDir();
    mongodbUrl = standIn.url().replace('/?', `/cf_${randomUUID().slice(0, 8)}?`);
    const accounts = await openAccountStore({ dataDir: dir, mongodbUrl });
    try {
      const account = await accounts.createAccount(`owner${randomUUID().slice(0, 8)}`);
      owner = { accountId: account.id, token: await accounts.createToken(account.id, ['read:filters', 'write:filters']) };
    } finally {
      await accounts.close();
    }
    alice = await newLogin({ dataDir: dir, mongodbUrl }, 'alice');
    const start = (script: string, extra: Record<string, string> = {}) => {
      const child = NodeProcess.start(script, { DATA_DIR: dir, MONGODB_URL: mongodbUrl, ...extra });
      processes.push(child);
      return child;
    };
    projectors = [start('src/projector-main.ts'), start('src/projector-main.ts')];
    const apis = [start('src/main.ts', { PROJECTOR: 'off' }), start('src/main.ts', { PROJECTOR: 'off' })];
    urls = (await Promise.all(apis.map((api) => api.url()))) as [string, string];
    await Promise.all(projectors.map((projector) => projector.url()));
  });

  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
  });

  it('authenticates the same tokens on both API processes, which read each other’s writes', async () => {
    const [a, b] = urls.map((url) => filtersApi(url, owner.token)) as [ReturnType<typeof filtersApi>, ReturnType<typeof filtersApi>];
    const created = await a.post('/api/v2/filters', newFilter('shared'));
    assert.equal(created.status, 200);
    const seen = await b.get(`/api/v2/filters/${created.body.id}`);
    assert.equal(seen.status, 200);
    assert.equal(seen.body.title, 'shared');
    const leaders = await Promise.all(projectors.map(async (projector) => (await health(await projector.url())).leader));
    assert.deepEqual(leaders.sort(), [false, true], 'one projector leads, the other waits');
  });

  it('sees a token revoked elsewhere on both processes at once', async () => {
    const accounts = await openAccountStore({ dataDir: dir, mongodbUrl });
    let token: string;
    try {
      token = await accounts.createToken(owner.accountId, ['read:filters']);
      for (const url of urls) assert.equal((await filtersApi(url, token).get('/api/v2/filters')).status, 200);
      assert.equal(await accounts.revokeToken(token), true);
    } finally {
      await accounts.close();
    }
    for (const url of urls) assert.equal((await filtersApi(url, token).get('/api/v2/filters')).status, 401);
  });

  it('carries a webmail session, its compose IDs and its mail from one process to the other, and a logout on either ends it for both', async () => {
    const onA = new WebmailClient(urls[0]);
    assert.equal((await onA.login(alice.username, alice.password)).status, 302);
    const onB = new WebmailClient(urls[1]);
    for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
    const mailbox = await onB.get('/webmail/?_task=mail&_mbox=INBOX');
    assert.equal(mailbox.status, 200);
    assert.match(mailbox.text, new RegExp(`${alice.username}@`, 'i'));
    const compose = await onB.compose();
    assert.equal((await onA.get(`/webmail/?_task=mail&_action=compose&_id=${compose}`)).status, 200, 'the compose ID is known on the other process');
    const bob = await newLogin({ dataDir: dir, mongodbUrl }, 'bob');
    const send = (client: WebmailClient) =>
      client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', {
        _id: compose,
        _token: onA.requestToken,
        _to: `${bob.username}@localhost`,
        _cc: '',
        _subject: 'across processes',
        _body: 'hello',
      });
    assert.match((await send(onA)).text, /Message sent successfully/);
    assert.doesNotMatch((await send(onB)).text, /Message sent successfully/, 'the compose ID sent once, whichever process is asked');
    const bobOnB = new WebmailClient(urls[1]);
    assert.equal((await bobOnB.login(bob.username, bob.password)).status, 302);
    assert.match((await bobOnB.get('/webmail/?_task=mail&_mbox=INBOX')).text, /across processes/, 'mail delivered on one process is read on the other');
    assert.equal((await onB.get(`/webmail/?_task=logout&_token=${onA.requestToken}`)).status, 200);
    const afterLogout = await onA.get('/webmail/?_task=mail&_mbox=INBOX');
    assert.match(afterLogout.text, /name="_user"/, 'the other process shows the login form');
  });

  it('refuses on one process after 3 wrong passwords on the other', async () => {
    const victim = await newLogin({ dataDir: dir, mongodbUrl }, 'victim');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal((await new WebmailClient(urls[0]).login(victim.username, 'wrong')).status, 401);
    }
    const answer = await new WebmailClient(urls[1]).login(victim.username, victim.password);
    assert.equal(answer.status, 401);
    assert.match(answer.text, /Too many failed login attempts\. Try again later\./);
  });

  it('shares OAuth apps and app tokens: registered on one process, a token made on the other, verified on the first, listed by the CLI', async () => {
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const registered = await fetch(`${urls[0]}/api/v1/apps`, form({ client_name: 'Shared app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }));
    assert.equal(registered.status, 200);
    const app = (await registered.json()) as { client_id: string; client_secret: string };
    const issued = await fetch(`${urls[1]}/oauth/token`, form({ grant_type: 'client_credentials', ...app }));
    assert.equal(issued.status, 200, 'the other process knows the app');
    const { access_token } = (await issued.json()) as { access_token: string };
    const verified = await fetch(`${urls[0]}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(verified.status, 200, 'the first process knows the token');
    assert.equal(((await verified.json()) as { name: string }).name, 'Shared app');
    const listed = await runCli(['app', 'list'], { DATA_DIR: dir, MONGODB_URL: mongodbUrl });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(app.client_id), 'the CLI lists the app from MongoDB');
  });

  it('keeps none of that state in DATA_DIR: only the event log is there', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.sqlite'));
    assert.deepEqual(files, ['events.sqlite']);
  });
});
