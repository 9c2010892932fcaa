import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect } from 'nats';
import { scratchDir } from './scratch-dir.ts';
import { natsServerMissing } from './nats-server.ts';

export { natsServerMissing };

const BINARY = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((path) => !spawnSync(path, ['--version']).error);
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** One server of the cluster: its own client and route ports and store directory, kept across restarts. */
export class ClusterNode {
  private child: ChildProcess | null = null;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly routePort: number,
    private readonly storeDir: string,
    private readonly routes: readonly number[],
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (again, on the same ports and store) and resolves once the server says it is ready. */
  async start(): Promise<void> {
    const args = ['-a', '127.0.0.1', '-p', String(this.port), '-n', this.name, '-js', '-sd', this.storeDir];
    const cluster = ['--cluster_name', 'cf-test', '--cluster', `nats://127.0.0.1:${this.routePort}`];
    const routes = ['--routes', this.routes.map((port) => `nats://127.0.0.1:${port}`).join(',')];
    const child = spawn(BINARY!, [...args, ...cluster, ...routes], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    running.add(child);
    let said = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Server is ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`nats-server ${this.name} exited with ${code}:\n${said.slice(-2000)}`)));
    });
  }

  /** SIGKILL: a crash, as the other servers and the clients see it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
    running.delete(child);
    this.child = null;
  }

  /** SIGSTOP: cut off from its routes and clients (TCP stays open, nothing answers), until `heal`. */
  partition(): void {
    this.child?.kill('SIGSTOP');
  }

  heal(): void {
    this.child?.kill('SIGCONT');
  }
}

/** Three nats-servers with JetStream, routed to each other on loopback, in a temporary directory. */
export class NatsCluster {
  private constructor(readonly nodes: readonly ClusterNode[]) {}

  static async start(size = 3): Promise<NatsCluster> {
    const dir = scratchDir('nats-cluster-');
    const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
    const nodes = ports.map(
      (p, i) =>
        new ClusterNode(
          `n${i + 1}`,
          p.client,
          p.route,
          join(dir, `n${i + 1}`),
          ports.filter((_, j) => j !== i).map((other) => other.route),
        ),
    );
    const cluster = new NatsCluster(nodes);
    try {
      await Promise.all(nodes.map((node) => node.start()));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Every server's URL, as NATS_URL lists them. */
  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  node(name: string): ClusterNode {
    const found = this.nodes.find((node) => node.name === name);
    if (!found) throw new Error(`no server ${name} in the cluster`);
    return found;
  }

  /** The stream's leader and its replicas as the cluster reports them; null while it has no leader. */
  async streamCluster(stream: string): Promise<{ leader: string; replicas: { name: string; current: boolean }[] } | null> {
    const connection = await connect({ servers: this.urls, timeout: 2000 });
    try {
      const info = await (await connection.jetstreamManager({ timeout: 2000 })).streams.info(stream);
      const leader = info.cluster?.leader;
      if (!leader) return null;
      return { leader, replicas: (info.cluster?.replicas ?? []).map((r) => ({ name: r.name, current: r.current })) };
    } catch {
      return null;
    } finally {
      await connection.close();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill()));
  }
}
