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
  const answer = await requestOnHost(hosts, host, `${url}/health`);
  return { ...(answer.body as Health), httpStatus: answer.status, tookMs: answer.tookMs };
}

export interface HostAnswer {
  /** 0 when no answer came within the request's time-out. */
  status: number;
  body: unknown;
  tookMs: number;
  unanswered?: string;
}

/** A JSON request made from the host itself, with a bearer token and a body if given. */
export async function requestOnHost(
  hosts: TestHosts,
  host: string,
  url: string,
  options: { method?: string; token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<HostAnswer> {
  const [command, ...args] = [...hosts.prefix(host), process.execPath, '-e', ASK, url, JSON.stringify(options)];
  const { stdout } = await execFileAsync(command, args, { timeout: (options.timeoutMs ?? 10_000) + 30_000 });
  return JSON.parse(stdout) as HostAnswer;
}

const ASK = `
const { method = 'GET', token, body, timeoutMs = 10000 } = JSON.parse(process.argv[2]);
const headers = { ...(token ? { authorization: 'Bearer ' + token } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
const started = Date.now();
fetch(process.argv[1], { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) }).then(
  async (r) => {
    const text = await r.text();
    let parsed = text;
    try { parsed = JSON.parse(text); } catch {}
    console.log(JSON.stringify({ status: r.status, body: parsed, tookMs: Date.now() - started }));
  },
  (error) => console.log(JSON.stringify({ status: 0, body: null, unanswered: String(error), tookMs: Date.now() - started })),
);
`;

/** The projector's `projector_fenced_writes_total`, from its /metrics. */
export async function fencedWrites(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^projector_fenced_writes_total (\d+)/m.exec(text)?.[1] ?? 0);
}
