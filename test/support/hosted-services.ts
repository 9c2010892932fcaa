import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { scratchDir } from './scratch-dir.ts';
import type { TestHosts } from './test-hosts.ts';

const STAND_IN = new URL('./mongo-stand-in.py', import.meta.url).pathname;
const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

function track(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

export interface HostedService {
  /** How other hosts reach it. */
  readonly url: string;
  stop(): void;
}

/** The MongoDB wire-protocol STAND-IN (not a server; see mongo-stand-in.py) serving on a test host's address. */
export async function mongoStandInOn(hosts: TestHosts, host: string): Promise<HostedService> {
  const [command, ...args] = [...hosts.prefix(host), '/usr/bin/python3', STAND_IN];
  const child = track(spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MONGO_STAND_IN_HOST: hosts.address(host) } }));
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error('the MongoDB stand-in ended before it listened');
  // It serves a replica set on three ports (the primary's first); the tests talk to the primary alone.
  return { url: `mongodb://${hosts.address(host)}:${String(first.value).trim().split(' ')[0]}/?directConnection=true`, stop: () => child.kill('SIGKILL') };
}

/** A NATS server with JetStream (its store in a scratch directory) on a test host's address, port 4222. */
export async function natsServerOn(hosts: TestHosts, host: string): Promise<HostedService> {
  const binary = NATS_SERVER.find((path) => existsSync(path));
  if (!binary) throw new Error('no nats-server binary (apt-get install nats-server)');
  const [command, ...args] = [...hosts.prefix(host), binary, '-a', hosts.address(host), '-p', '4222', '-js', '-sd', scratchDir('nats-')];
  const child = track(spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('Server is ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}:\n${said}`)));
  });
  return { url: `nats://${hosts.address(host)}:4222`, stop: () => child.kill('SIGKILL') };
}

const RELAY = new URL('./delaying-relay-process.ts', import.meta.url).pathname;

export interface DelayingRelay {
  /** host:port where clients reach the target through the slow link. */
  readonly address: string;
  /** Sets the one-way delay for bytes that arrive from now on. */
  setDelay(ms: number): Promise<void>;
  stop(): void;
}

/** A delaying TCP relay (delaying-relay-process.ts) on test host `host`, to `target` (address:port). */
export async function delayingRelayOn(hosts: TestHosts, host: string, target: string, delayMs: number): Promise<DelayingRelay> {
  const [targetAddress, targetPort] = target.split(':') as [string, string];
  const [command, ...args] = [
    ...hosts.prefix(host),
    process.execPath,
    '--import',
    'tsx',
    RELAY,
    hosts.address(host),
    targetAddress,
    targetPort,
    String(delayMs),
  ];
  const child = track(spawn(command, args, { cwd: new URL('../../', import.meta.url).pathname, stdio: ['pipe', 'pipe', 'inherit'] }));
  const said = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await said.next();
  if (first.done || !/^\d+$/.test(String(first.value).trim())) throw new Error('the delaying relay ended before it listened');
  return {
    address: `${hosts.address(host)}:${String(first.value).trim()}`,
    async setDelay(ms) {
      child.stdin!.write(`delay ${ms}\n`);
      // The relay says when it applies it, so what is sent after this resolves surely meets the new delay.
      const answer = await said.next();
      if (answer.value !== `delay ${ms}`) throw new Error(`the delaying relay answered ${String(answer.value)}`);
    },
    stop: () => child.kill('SIGKILL'),
  };
}
