import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => !spawnSync(path, ['--version']).error);

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server of the test's own on a free port (no persistence), so a test may stop, freeze or secure it. */
export class OwnRedis {
  private constructor(
    readonly port: number,
    readonly child: ChildProcess,
  ) {}

  static async start(options: { password?: string } = {}): Promise<OwnRedis> {
    if (!REDIS_SERVER) throw new Error('no redis-server binary (apt-get install redis-server)');
    const port = await freePort();
    const auth = options.password ? ['--requirepass', options.password] : [];
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', ...auth, '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let said = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${said}`)));
    });
    return new OwnRedis(port, child);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGSTOP: the server keeps its connections open and answers nothing, as a hung host would. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}
