// Time to open an INBOX of 10,000 messages in the webmail on IMAP: a Dovecot of its own (the tests'
// helper), one user whose INBOX is filled by `doveadm import` (Dovecot's own storage code, as mail that
// arrived over time would be), then the webmail's sign-in and GET of the INBOX: a LIST with STATUS, a
// SELECT and one FETCH of the newest 50, over a fresh IMAP login per request as Roundcube does.
// Run: node --import tsx bench/webmail-inbox.ts [messages]
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startImapWebmailServer } from '../test/support/imap-webmail-server.ts';
import { WebmailClient } from '../test/support/webmail-client.ts';

const COUNT = Number(process.argv[2] ?? 10_000);
const OPENS = 20;

/** A Maildir to import from, one small message a minute since New Year. */
function writeMaildir(root: string, count: number): void {
  for (const sub of ['cur', 'new', 'tmp']) mkdirSync(join(root, sub), { recursive: true });
  const start = Date.UTC(2026, 0, 1);
  for (let i = 1; i <= count; i++) {
    const date = new Date(start + i * 60_000).toUTCString();
    const raw = `From: sender${i % 97}@example.org\r\nTo: bench@localhost\r\nSubject: message number ${i}\r\nDate: ${date}\r\nMessage-ID: <${i}@bench>\r\n\r\nbody ${i}\r\n`;
    writeFileSync(join(root, 'cur', `${1_700_000_000 + i}.M${i}P1.bench:2,${i % 3 === 0 ? 'S' : ''}`), raw);
  }
}

const server = await startImapWebmailServer({ WEBMAIL_REFRESH_SECONDS: '60' });
try {
  const user = await server.account('bench');
  const source = join(server.dovecot.dir, 'import-source');
  writeMaildir(source, COUNT);
  // doveadm works as the mail user, who must be able to keep its index beside the source.
  const owner = statSync(join(server.dovecot.dir, 'home'));
  if (process.getuid?.() === 0) for (const path of [source, ...['cur', 'new', 'tmp'].map((sub) => join(source, sub))]) chownSync(path, owner.uid, owner.gid);
  if (process.getuid?.() === 0) for (const name of readdirSync(join(source, 'cur'))) chownSync(join(source, 'cur', name), owner.uid, owner.gid);
  const importing = performance.now();
  const imported = spawnSync('doveadm', ['-c', join(server.dovecot.dir, 'dovecot.conf'), 'import', '-u', user.username, `maildir:${source}`, '', 'all'], {
    encoding: 'utf8',
  });
  if (imported.status !== 0) throw new Error(`doveadm import: ${imported.stderr}`);
  if (imported.stderr.trim() !== '') throw new Error(`doveadm import: ${imported.stderr}`);
  console.log(`${COUNT} messages imported into the INBOX in ${(performance.now() - importing).toFixed(0)} ms`);

  const client = new WebmailClient(server.baseUrl);
  const login = await client.login(user.username, user.password);
  if (login.status !== 302) throw new Error(`login answered ${login.status}`);
  const open = async (path: string, expect: string): Promise<number> => {
    const began = performance.now();
    const page = await client.get(path);
    const took = performance.now() - began;
    if (page.status !== 200 || !page.text.includes(expect)) throw new Error(`${path}: ${page.status}, without ${expect}`);
    return took;
  };
  const inbox = '/webmail/?_task=mail&_mbox=INBOX';
  console.log(`first open of the INBOX: ${(await open(inbox, `(${COUNT} messages)`)).toFixed(0)} ms`);
  const times: number[] = [];
  for (let i = 0; i < OPENS; i++) times.push(await open(inbox, `message number ${COUNT}<`));
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  console.log(`INBOX of ${COUNT}, ${OPENS} opens: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
  const last = await open(`${inbox}&_page=${Math.ceil(COUNT / 50)}`, 'message number 1<');
  console.log(`its last page (the oldest messages): ${last.toFixed(1)} ms`);
} finally {
  await server.close();
}
