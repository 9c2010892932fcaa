import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { userInfo } from 'node:os';
import { scratchDir } from './scratch-dir.ts';
import { startSmtpToLmtp } from './smtp-to-lmtp.ts';
import { dovecotConfig } from './dovecot-config.ts';
import { waitUntil } from './wait-until.ts';

const BINARY = '/usr/sbin/dovecot';
const MODULES = ['imap', 'lmtp', 'submission'].map((name) => `/usr/lib/dovecot/${name}`);

/** Why a test that needs its own Dovecot cannot run here, or null. */
export function dovecotMissing(): string | null {
  if (!existsSync(BINARY)) return `no Dovecot at ${BINARY} (apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond)`;
  const absent = MODULES.filter((path) => !existsSync(path));
  return absent.length ? `Dovecot lacks ${absent.join(', ')} (apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond)` : null;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Dovecot drops root for mail users; as root, the mail belongs to the `dovecot` user, otherwise to us. */
function mailOwner(): { user: string; uid: number; gid: number; login: string } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid, login: me.username };
  const id = (flag: string) => Number(spawnSync('id', [flag, 'dovecot']).stdout.toString().trim());
  return { user: 'dovecot', uid: id('-u'), gid: id('-g'), login: 'dovenull' };
}

export type MailUser = { readonly name: string; readonly password: string };

/**
 * A Dovecot of the test's own in a temporary directory: IMAP, LMTP and submission on free loopback ports,
 * users in a passwd-file, Maildir storage, and submission relaying into LMTP, so mail sent to a local user
 * lands in that user's INBOX. Plain text on loopback (ssl = no) keeps the tests free of certificates.
 */
export class OwnDovecot {
  private child: ChildProcess | null = null;

  private constructor(
    readonly dir: string,
    readonly ports: { readonly imap: number; readonly lmtp: number; readonly submission: number },
    private readonly bridge: { readonly port: number; close(): Promise<void> },
  ) {}

  static async start(): Promise<OwnDovecot> {
    const dir = scratchDir('dovecot-');
    const ports = { imap: await freePort(), lmtp: await freePort(), submission: await freePort() };
    const server = new OwnDovecot(dir, ports, await startSmtpToLmtp(ports.lmtp));
    server.writeConfig();
    await server.resume();
    return server;
  }

  /** Stops Dovecot and the relay bridge for good. */
  async close(): Promise<void> {
    await this.stop();
    await this.bridge.close();
  }

  get imapUrl(): string {
    return `imap://127.0.0.1:${this.ports.imap}`;
  }

  get smtpUrl(): string {
    return `smtp://127.0.0.1:${this.ports.submission}`;
  }

  get lmtpPort(): number {
    return this.ports.lmtp;
  }

  get log(): string {
    const path = join(this.dir, 'dovecot.log');
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  }

  /**
   * Adds users (plain passwords are fine in a throw-away test server). One passwd-file per user: Dovecot
   * looks at a known file at most once a second, but opens a file it has not seen at once.
   */
  addUsers(...users: MailUser[]): void {
    const owner = mailOwner();
    for (const user of users) {
      if (!/^[a-z0-9._-]+$/i.test(user.name)) throw new Error(`test user names are plain: ${user.name}`);
      writeFileSync(
        join(this.dir, 'users', user.name),
        `${user.name}:{PLAIN}${user.password}:${owner.uid}:${owner.gid}::${join(this.dir, 'home', user.name)}::\n`,
      );
    }
  }

  /** Starts (again) in the foreground and resolves once all three listeners answer. */
  async resume(): Promise<void> {
    const child = spawn(BINARY, ['-F', '-c', join(this.dir, 'dovecot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const exited = new Promise<never>((_resolve, reject) =>
      child.once('exit', (code) => reject(new Error(`dovecot exited with ${code}: ${said}\n${this.log}`))),
    );
    exited.catch(() => {});
    await Promise.race([
      exited,
      waitUntil(
        async () => (await listening(this.ports.imap)) && (await listening(this.ports.lmtp)) && (await listening(this.ports.submission)),
        'Dovecot listening',
      ),
    ]);
  }

  /**
   * Stops it as `doveadm stop` would (SIGTERM: the master ends its children, then itself), so it can be
   * started again on the same ports and sockets; clients see their connections cut.
   */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
    await waitUntil(async () => !(await listening(this.ports.imap)), 'Dovecot gone');
  }

  private writeConfig(): void {
    const owner = mailOwner();
    const dir = this.dir;
    for (const sub of ['run', 'state', 'home', 'users']) mkdirSync(join(dir, sub));
    if (userInfo().uid === 0) {
      // The mail user must reach its Maildir through the (0700) temporary directories.
      for (let path = dir; path !== dirname(path) && path.includes('cf-test-'); path = dirname(path)) chmodSync(path, 0o711);
      chownSync(join(dir, 'home'), owner.uid, owner.gid);
    }
    writeFileSync(join(dir, 'dovecot.conf'), dovecotConfig({ dir, ports: this.ports, relayPort: this.bridge.port, owner, me: userInfo().username }));
  }
}
