import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { STORE_FILES } from '../../src/shared/store-files.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { storeRows } from '../support/sqlite-rows.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

// A backup is every store a restore needs: the signed-in apps (oauth.sqlite), the Idempotency-Keys a
// client may still retry (idempotency.sqlite), the webmail's sessions, as well as filters and accounts.
describe('content-filters backup <dir>: every store, restored into an empty directory', function () {
  this.timeout(180_000);
  const processes: NodeProcess[] = [];
  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGTERM')));
  });
  const start = (dir: string) => {
    const child = NodeProcess.start('src/main.ts', { DATA_DIR: dir, PROJECTOR: 'on' });
    processes.push(child);
    return child;
  };

  it('copies every store in DATA_DIR row for row, says which, and the restored service keeps tokens, keys and sessions', async () => {
    const dir = scratchDir('every-');
    const owner = await newOwner(dir);
    const accounts = SqliteAccountStore.inDataDir(dir);
    const username = `mail${process.pid}${Date.now()}`;
    const account = await accounts.createAccount(username);
    await accounts.setPasswordHash(account.id, await hashPassword('webmail password'));
    await accounts.close();
    // The webmail makes this key at the first IMAP sign-in (none here): as if one had sealed a password.
    writeFileSync(join(dir, 'webmail-des-key'), randomBytes(32).toString('base64'), { mode: 0o600 });
    const service = start(dir);
    const url = await service.url();

    const app = (await (
      await fetch(`${url}/api/v1/apps`, form({ client_name: 'Backup app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }))
    ).json()) as {
      client_id: string;
      client_secret: string;
    };
    const granted = (await (
      await fetch(`${url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'read' }))
    ).json()) as { access_token: string };
    const appToken = granted.access_token;
    const verifyApp = (base: string) => fetch(`${base}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${appToken}` } });
    assert.equal((await verifyApp(url)).status, 200);
    const keyed = (base: string) =>
      fetch(`${base}/api/v2/filters`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'idempotency-key': `backup-${process.pid}` },
        body: JSON.stringify(newFilter('keyed')),
      });
    const first = (await (await keyed(url)).json()) as { id: string };
    const webmail = new WebmailClient(url);
    assert.equal((await webmail.login(username, 'webmail password')).status, 302);
    const inbox = (base: string) => {
      const client = new WebmailClient(base);
      for (const [name, value] of webmail.cookies) client.cookies.set(name, value);
      return client.get('/webmail/?_task=mail&_mbox=INBOX');
    };
    assert.equal((await inbox(url)).status, 200);
    // The cookies a browser sends are nowhere in the store's bytes, its write-ahead log included.
    const stored = ['webmail-sessions.sqlite', 'webmail-sessions.sqlite-wal'].map((file) => readFileSync(join(dir, file)).toString('latin1')).join('');
    for (const [name, value] of webmail.cookies) assert.ok(value.length < 20 || !stored.includes(value), `cookie ${name} stored in clear`);
    assert.ok(
      [...webmail.cookies.values()].some((value) => value.length >= 26),
      'the session and auth cookies were checked',
    );
    // Stopped: the copies must then equal the files row for row (the online case is backup-restore.spec.ts).
    assert.equal(await service.kill('SIGTERM'), 0);

    const backupDir = join(scratchDir('every-backup-'), 'copy');
    const backup = await runCli(['backup', backupDir], { DATA_DIR: dir });
    assert.equal(backup.code, 0, backup.stderr);
    const inDataDir = readdirSync(dir).filter((name) => name.endsWith('.sqlite'));
    const order = Object.values(STORE_FILES).map((store) => store.file as string);
    assert.deepEqual(
      inDataDir.filter((file) => !order.includes(file)),
      [],
      'every store the service made is named in store-files.ts',
    );
    const key = ['webmail-des-key'];
    const expected = [...inDataDir.sort((a, b) => order.indexOf(a) - order.indexOf(b)), ...key];
    assert.deepEqual(backup.stdout.trim().split('\n'), expected, 'stdout names each copy, in the order of STORE_FILES');
    for (const store of [
      'oauth.sqlite',
      'idempotency.sqlite',
      'webmail-sessions.sqlite',
      'accounts.sqlite',
      'events.sqlite',
      'read-models.sqlite',
      'mail.sqlite',
    ]) {
      assert.ok(inDataDir.includes(store), `${store} was in DATA_DIR`);
    }
    assert.deepEqual(readdirSync(backupDir).sort(), [...expected].sort());
    for (const file of key) assert.equal(readFileSync(join(backupDir, file), 'utf8'), readFileSync(join(dir, file), 'utf8'));
    const original = storeRows(dir);
    const copied = storeRows(backupDir);
    assert.deepEqual(Object.keys(copied), Object.keys(original));
    for (const file of Object.keys(original)) assert.deepEqual(copied[file], original[file], `every row of ${file}`);

    const restored = join(scratchDir('every-restored-'), 'data');
    cpSync(backupDir, restored, { recursive: true });
    const again = start(restored);
    const restoredUrl = await again.url();
    assert.equal((await verifyApp(restoredUrl)).status, 200, "the app's token was restored with its app");
    const retried = await keyed(restoredUrl);
    assert.equal(retried.status, 200);
    assert.equal(((await retried.json()) as { id: string }).id, first.id, 'the Idempotency-Key still names the filter it created');
    const mailbox = await inbox(restoredUrl);
    assert.equal(mailbox.status, 200);
    assert.match(mailbox.text, /data-request-token=/, 'the webmail session was restored: the mailbox, not the login page');
    assert.equal((await filtersApi(restoredUrl, owner.token).get('/api/v2/filters')).status, 200);
  });
});
