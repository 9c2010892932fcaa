import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { scratchDir } from './scratch-dir.ts';

const BINARY = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((path) => !spawnSync(path, ['--version']).error);

/** Why a test that needs its own NATS server cannot run here, or null. */
export const natsServerMissing = (): string | null => (BINARY ? null : 'no nats-server binary (apt-get install nats-server)');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A NATS server (with JetStream) of the test's own, on a free port, which the test may stop and start
 * again on the same port and store: an outage nobody else notices.
 */
export class OwnNatsServer {
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    private readonly jetstream: boolean,
  ) {}

  /** `jetstream: false` starts a server without `-js`, as an operator may run one. */
  static async start({ jetstream = true }: { jetstream?: boolean } = {}): Promise<OwnNatsServer> {
    const server = new OwnNatsServer(await freePort(), scratchDir('nats-'), jetstream);
    await server.resume();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (again) and resolves once the server says it is ready. */
  async resume(): Promise<void> {
    const js = this.jetstream ? ['-js', '-sd', this.storeDir] : [];
    const child = spawn(BINARY!, ['-a', '127.0.0.1', '-p', String(this.port), ...js], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let said = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Server is ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}:\n${said}`)));
    });
  }

  /** Kills it outright, as a crash or a network cut would look to clients. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }
}
