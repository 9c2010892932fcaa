import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { scratchDir } from './scratch-dir.ts';

const BINARY = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((path) => !spawnSync(path, ['--version']).error);
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export const natsServerMissing = (): string | null => (BINARY ? null : 'no nats-server binary (apt-get install nats-server)');
export const opensslMissing = (): string | null => (spawnSync('openssl', ['version']).error ? 'no openssl binary' : null);

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A nats-server of the test's own, started with a configuration file, on a free loopback port. */
export class ConfiguredNatsServer {
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  /** `config` is the file's text; `-a`/`-p` on the command line place it on loopback and a free port. */
  static async start(config: string, dir = scratchDir('nats-conf-'), env: Record<string, string> = {}): Promise<ConfiguredNatsServer> {
    const file = join(dir, 'nats-server.conf');
    writeFileSync(file, config);
    return ConfiguredNatsServer.startFile(file, dir, env);
  }

  /** Started with an existing configuration file (a shipped example), its variables from `env`. */
  static async startFile(file: string, dir = scratchDir('nats-conf-'), env: Record<string, string> = {}): Promise<ConfiguredNatsServer> {
    const port = await freePort();
    const child = spawn(BINARY!, ['-c', file, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    running.add(child);
    let said = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Server is ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}:\n${said}`)));
    });
    return new ConfiguredNatsServer(port, dir, child);
  }

  url(scheme = 'nats', userInfo = ''): string {
    return `${scheme}://${userInfo === '' ? '' : `${userInfo}@`}127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
    running.delete(this.child);
  }
}

const base64url = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');

/** A NATS JWT (ed25519-nkey), signed by `issuer`: what `nsc` writes, made here without it. */
function jwt(issuer: ReturnType<typeof nkeys.createOperator>, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims = {
    jti: base64url(crypto.getRandomValues(new Uint8Array(16))),
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats,
  };
  const body = `${header}.${base64url(JSON.stringify(claims))}`;
  return `${body}.${base64url(issuer.sign(new TextEncoder().encode(body)))}`;
}

/**
 * An operator, an account and a user of it: the server's configuration (operator mode, accounts
 * preloaded in memory) and the user's `.creds` file, as `nsc` would make them.
 */
export function operatorMode(dir: string): { config: string; credsFile: string } {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const unlimited = { subs: -1, data: -1, payload: -1 };
  const operatorJwt = jwt(operator, operator.getPublicKey(), 'test-operator', { type: 'operator', version: 2 });
  const accountJwt = jwt(operator, account.getPublicKey(), 'test-account', {
    limits: { ...unlimited, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 },
    default_permissions: { pub: {}, sub: {} },
    type: 'account',
    version: 2,
  });
  const userJwt = jwt(account, user.getPublicKey(), 'test-user', { pub: {}, sub: {}, ...unlimited, type: 'user', version: 2 });
  const credsFile = join(dir, 'user.creds');
  writeFileSync(
    credsFile,
    `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n` +
      `-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`,
    { mode: 0o600 },
  );
  const config = `operator: ${operatorJwt}\nresolver: MEMORY\nresolver_preload: {\n  ${account.getPublicKey()}: ${accountJwt}\n}\n`;
  return { config, credsFile };
}

/** A CA and a server certificate for 127.0.0.1 signed by it, made with openssl in `dir`. */
export function tlsFiles(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const run = (...args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${result.stderr}`);
  };
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}
