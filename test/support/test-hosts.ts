import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

/**
 * Test hosts made of Linux network namespaces: each host has its own network stack and one address on a
 * private bridge, which lives in a namespace of its own (the "switch"), so the machine's own network is
 * touched only by one veth pair that lets the test runner reach the hosts. Processes run on a host through
 * `ip netns exec` (same files, same clock, own network). A host can be cut off (its switch port goes down:
 * packets vanish silently, as in a real partition, with no error to the sender) and healed. (Delaying
 * packets needs `tc netem`, which the kernel of the development and CI machines lacks.)
 *
 * Names are `cft-<runner pid>-<host>`: a run cleans up after itself on exit, and the next run removes the
 * namespaces of runs whose process is gone (a run killed with SIGKILL leaves them behind).
 */

const PREFIX = 'cft-';
const SWITCH = 'switch';

function ip(args: readonly string[], allowFailure = false): string {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0 && !allowFailure) throw new Error(`ip ${args.join(' ')}: ${result.error?.message ?? result.stderr.trim()}`);
  return result.stdout ?? '';
}

/** Why test hosts cannot be made here, or null when they can. */
export function testHostsMissing(): string | null {
  if (process.getuid?.() !== 0) return 'network namespaces need root (the tests run as root in CI)';
  const probe = `${PREFIX}${process.pid}-probe${randomInt(1e6)}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.error || made.status !== 0) return `ip netns does not work here: ${made.error?.message ?? made.stderr.trim()}`;
  ip(['netns', 'del', probe], true);
  return null;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Kills what still runs in a namespace (it lives on while a process is inside), then removes it. */
function removeNamespace(name: string): void {
  for (const pid of ip(['netns', 'pids', name], true).split(/\s+/).filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  ip(['netns', 'del', name], true);
}

/** Removes the namespaces of earlier runs whose runner process is gone. */
export function removeStaleHosts(): void {
  for (const line of ip(['netns', 'list'], true).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const runner = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (runner && !alive(Number(runner))) removeNamespace(name);
  }
}

/** A /24 in 10.128.0.0/9 that no route of the machine's own namespace covers. */
function freeSubnet(): string {
  const routes = ip(['-4', 'route', 'show']);
  for (;;) {
    const subnet = `10.${randomInt(128, 256)}.${randomInt(256)}`;
    if (!routes.includes(`${subnet}.`) && !routes.includes(`10.${subnet.split('.')[1]}.0.0/16`)) return subnet;
  }
}

const created = new Set<TestHosts>();
process.once('exit', () => {
  for (const hosts of created) hosts.destroy();
});

export class TestHosts {
  private readonly addresses = new Map<string, string>();

  private constructor(
    private readonly run: string,
    private readonly subnet: string,
  ) {}

  /** Makes one host per name on a fresh bridge, and a route to them from the runner's namespace. */
  static create(names: readonly string[]): TestHosts {
    removeStaleHosts();
    const hosts = new TestHosts(`${PREFIX}${process.pid}-${randomInt(1e6).toString(36)}`, freeSubnet());
    created.add(hosts);
    try {
      hosts.build(names);
    } catch (error) {
      hosts.destroy();
      throw error;
    }
    return hosts;
  }

  /** The namespace a host runs in. */
  namespace(host: string): string {
    if (host !== SWITCH && !this.addresses.has(host)) throw new Error(`no test host ${host}`);
    return `${this.run}-${host}`;
  }

  /** The host's address on the bridge. */
  address(host: string): string {
    const address = this.addresses.get(host);
    if (!address) throw new Error(`no test host ${host}`);
    return address;
  }

  /** What to put before a command so that it runs on the host (`ip netns exec` execs it: same pid, signals reach it). */
  prefix(host: string): string[] {
    return ['ip', 'netns', 'exec', this.namespace(host)];
  }

  /** Cuts the host off from every other one and from the runner: its packets, and those sent to it, are dropped. */
  cut(host: string): void {
    ip(['-n', this.namespace(SWITCH), 'link', 'set', 'dev', this.port(host), 'down']);
  }

  heal(host: string): void {
    ip(['-n', this.namespace(SWITCH), 'link', 'set', 'dev', this.port(host), 'up']);
  }

  /** Kills every process left on the hosts and removes them; the runner's veth goes with the switch. */
  destroy(): void {
    created.delete(this);
    for (const host of this.addresses.keys()) removeNamespace(this.namespace(host));
    removeNamespace(`${this.run}-${SWITCH}`);
  }

  private port(host: string): string {
    return `p${[...this.addresses.keys()].indexOf(host)}`;
  }

  private build(names: readonly string[]): void {
    const hub = `${this.run}-${SWITCH}`;
    ip(['netns', 'add', hub]);
    ip(['-n', hub, 'link', 'add', 'name', 'br0', 'type', 'bridge']);
    ip(['-n', hub, 'link', 'set', 'dev', 'br0', 'up']);
    names.forEach((host, index) => {
      if (host === SWITCH || !/^[a-z0-9]{1,12}$/.test(host) || this.addresses.has(host)) throw new Error(`bad test host name ${host}`);
      this.addresses.set(host, `${this.subnet}.${index + 1}`);
      const namespace = this.namespace(host);
      ip(['netns', 'add', namespace]);
      this.plug(hub, `p${index}`, namespace, `${this.subnet}.${index + 1}`);
    });
    // The runner's own end: an interface of the machine's namespace, named after this run's pid.
    const runnerEnd = `cft${process.pid}`.slice(0, 15);
    ip(['link', 'del', 'dev', runnerEnd], true);
    ip(['-n', hub, 'link', 'add', 'name', 'runner', 'type', 'veth', 'peer', 'name', runnerEnd, 'netns', String(process.pid)]);
    ip(['-n', hub, 'link', 'set', 'dev', 'runner', 'master', 'br0']);
    ip(['-n', hub, 'link', 'set', 'dev', 'runner', 'up']);
    ip(['addr', 'add', `${this.subnet}.254/24`, 'dev', runnerEnd]);
    ip(['link', 'set', 'dev', runnerEnd, 'up']);
    this.pinNeighbours(runnerEnd);
  }

  /**
   * Permanent ARP entries everywhere: a cut host then looks like one behind a router that drops its packets
   * (senders time out), not like a dead neighbour on the segment (which the kernel reports at once).
   */
  private pinNeighbours(runnerEnd: string): void {
    const mac = (args: string[]) =>
      (JSON.parse(ip(['-j', ...args, 'link', 'show', 'dev', args.length ? 'eth0' : runnerEnd])) as { address: string }[])[0]!.address;
    const ends = [...this.addresses].map(([host, address]) => ({ namespace: ['-n', this.namespace(host)], address, mac: mac(['-n', this.namespace(host)]) }));
    ends.push({ namespace: [], address: `${this.subnet}.254`, mac: mac([]) });
    for (const from of ends) {
      for (const to of ends) {
        if (to === from) continue;
        const dev = from.namespace.length ? 'eth0' : runnerEnd;
        ip([...from.namespace, 'neigh', 'replace', to.address, 'lladdr', to.mac, 'dev', dev, 'nud', 'permanent']);
      }
    }
  }

  /** A veth pair: `port` on the bridge, `eth0` with `address` in the host's namespace. */
  private plug(hub: string, port: string, namespace: string, address: string): void {
    ip(['-n', hub, 'link', 'add', 'name', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace]);
    ip(['-n', hub, 'link', 'set', 'dev', port, 'master', 'br0']);
    ip(['-n', hub, 'link', 'set', 'dev', port, 'up']);
    ip(['-n', namespace, 'link', 'set', 'dev', 'lo', 'up']);
    ip(['-n', namespace, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
    ip(['-n', namespace, 'link', 'set', 'dev', 'eth0', 'up']);
  }
}
