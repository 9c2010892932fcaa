import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestHosts } from './test-hosts.ts';

const execFileAsync = promisify(execFile);

/** What the partition tests read of a process's /health. */
export interface Health {
  status: string;
  problems: { reason: string }[];
  readStore: string;
  nats: string;
  leader?: boolean;
  owner?: string;
  projection: { leaseHolder: string | null };
}

export type Seen = Health & { httpStatus: number; tookMs: number };

/** /health as a host's process answers it, or why it did not answer within `ms`. */
export async function health(url: string, ms = 10_000): Promise<Seen> {
  const started = Date.now();
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(ms) });
  return { ...((await response.json()) as Health), httpStatus: response.status, tookMs: Date.now() - started };
}

/** /health asked from the host itself (a cut-off host is out of the runner's reach, not of its own). */
export async function healthOnHost(hosts: TestHosts, host: string, url: string): Promise<Seen> {
  const [command, ...args] = [...hosts.prefix(host), process.execPath, '-e', ASK_HEALTH, url];
  const { stdout } = await execFileAsync(command, args, { timeout: 30_000 });
  return JSON.parse(stdout) as Seen;
}

const ASK_HEALTH = `
const started = Date.now();
fetch(process.argv[1] + '/health', { signal: AbortSignal.timeout(10000) }).then(
  async (r) => console.log(JSON.stringify({ ...(await r.json()), httpStatus: r.status, tookMs: Date.now() - started })),
  (error) => console.log(JSON.stringify({ unanswered: String(error), tookMs: Date.now() - started })),
);
`;

/** The projector's `projector_fenced_writes_total`, from its /metrics. */
export async function fencedWrites(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^projector_fenced_writes_total (\d+)/m.exec(text)?.[1] ?? 0);
}
