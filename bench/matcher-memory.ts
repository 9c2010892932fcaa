/**
 * Memory of the built service (`node dist/main.js`) when every account holds the largest filter set the
 * limits allow, built for the matcher's worst case: 100,000 keyword characters per account (the
 * per-account limit), as keywords of 500 CJK characters drawn from 10,000 distinct ones, each account
 * then matching 3 statuses of 100,000 such characters (about 900 KB, under the 1 MB body limit). Prints
 * the service's resident memory (VmRSS) and its peak (VmHWM) after each account; goal: under 400 MB.
 *   node --import tsx bench/matcher-memory.ts [accounts, default 12]
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { scratchDir } from '../test/support/scratch-dir.ts';
import { buildDist, loadAverage } from './bench-rows.ts';

const accounts = Number(process.argv[2] ?? 12);
const dist = new URL('../dist/', import.meta.url).pathname;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** VmRSS and VmHWM of a process in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

buildDist();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: scratchDir('cf-matcher-memory-'),
  PORT: String(await freePort()),
  HOST: '127.0.0.1',
  RATE_LIMITS: 'off',
};
delete env.NATS_URL;
const cli = (...args: string[]) =>
  execFileSync(process.execPath, [`${dist}cli/main.js`, ...args], { env })
    .toString()
    .trim();
const tokens = Array.from({ length: accounts }, (_, k) => {
  cli('account', 'create', `heavy${k}`);
  return cli('token', 'create', `heavy${k}`, '--scopes', 'read:filters write:filters');
});

const service = spawn(process.execPath, [`${dist}main.js`], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const url = `http://127.0.0.1:${env.PORT}`;
try {
  while (
    !(await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((resolve) => setTimeout(resolve, 100));
  const send = async (token: string, path: string, body: unknown) => {
    const answer = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return answer;
  };
  let seed = 1;
  const cjk = (count: number) =>
    Array.from({ length: count }, () => String.fromCodePoint(0x4e00 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 10_000))).join('');
  console.log(`service memory at start: ${JSON.stringify(memoryOf(service.pid!))} MB`);
  for (const [k, token] of tokens.entries()) {
    // 5 filters of 40 keywords of 500 characters: 20,000 characters each (the per-filter limit), 100,000 in all.
    for (let f = 0; f < 5; f += 1) {
      const keywords_attributes = Array.from({ length: 40 }, () => ({ keyword: cjk(500), whole_word: false }));
      await send(token, '/api/v2/filters', { title: `heavy ${f}`, context: ['home'], keywords_attributes });
    }
    const statuses = Array.from({ length: 3 }, (_, s) => ({ id: String(1000 + s), content: cjk(100_000) }));
    await send(token, '/api/v2/filters/match', { statuses });
    console.log(`after account ${k + 1} of ${accounts} (100,000 keyword characters, one 900 KB match): ${JSON.stringify(memoryOf(service.pid!))} MB`);
  }
  console.log(`load average ${loadAverage()}`);
} finally {
  service.kill('SIGTERM');
}
