import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect } from 'nats';
import { scratchDir } from './scratch-dir.ts';
import { natsServerMissing } from './nats-server.ts';
import type { TestHosts } from './test-hosts.ts';

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

/** Where a server runs: on loopback, or on a test host (test-hosts.ts) that can be cut off. */
interface Place {
  readonly address: string;
  readonly via: readonly string[];
  readonly host?: string;
  readonly network?: TestHosts;
}

const LOOPBACK: Place = { address: '127.0.0.1', via: [] };

/** One server of the cluster: its own client and route ports and store directory, kept across restarts. */
export class ClusterNode {
  private child: ChildProcess | null = null;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly routePort: number,
    private readonly storeDir: string,
    private readonly routes: readonly string[],
    private readonly place: Place = LOOPBACK,
  ) {}

  get url(): string {
    return `nats://${this.place.address}:${this.port}`;
  }

  /** Starts (again, on the same ports and store) and resolves once the server says it is ready. */
  async start(): Promise<void> {
    const { address, via } = this.place;
    const args = ['-a', address, '-p', String(this.port), '-n', this.name, '-js', '-sd', this.storeDir];
    const cluster = ['--cluster_name', 'cf-test', '--cluster', `nats://${address}:${this.routePort}`];
    const routes = ['--routes', this.routes.join(',')];
    const command = [...via, BINARY!, ...args, ...cluster, ...routes];
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
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

  /**
   * On a test host, its host cut off from the network (packets dropped, as in a real partition); on
   * loopback, SIGSTOP (TCP stays open, nothing answers). Until `heal`.
   */
  partition(): void {
    if (this.place.network) this.place.network.cut(this.place.host!);
    else this.child?.kill('SIGSTOP');
  }

  heal(): void {
    if (this.place.network) this.place.network.heal(this.place.host!);
    else this.child?.kill('SIGCONT');
  }
}

/** Three nats-servers with JetStream, routed to each other (on loopback or on test hosts), in a temporary directory. */
export class NatsCluster {
  private constructor(readonly nodes: readonly ClusterNode[]) {}

  /** On loopback, or with `on`, one server on each of those test hosts (their own addresses, the usual ports). */
  static async start(size = 3, on?: { network: TestHosts; hosts: readonly string[] }): Promise<NatsCluster> {
    const dir = scratchDir('nats-cluster-');
    const places: Place[] = Array.from({ length: size }, (_, i) => {
      const host = on?.hosts[i];
      return on && host ? { address: on.network.address(host), via: on.network.prefix(host), host, network: on.network } : LOOPBACK;
    });
    const ports = on
      ? places.map(() => ({ client: 4222, route: 6222 }))
      : await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
    const routeUrls = ports.map((p, i) => `nats://${places[i]!.address}:${p.route}`);
    const nodes = ports.map(
      (p, i) =>
        new ClusterNode(
          `n${i + 1}`,
          p.client,
          p.route,
          join(dir, `n${i + 1}`),
          routeUrls.filter((_, j) => j !== i),
          places[i],
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
