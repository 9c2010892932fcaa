/**
 * The matcher against the built service, as a user runs it (`node dist/main.js`, accounts and tokens made
 * with `dist/cli/main.js`): one account's filter sets and match requests built to be slow (about 1 MB
 * each, over NATS and HTTP), while another account's `GET /api/v2/filters` is asked every 50 ms. Prints,
 * per hostile request, how long it took to be answered (goal: 2 s) and the slowest GET of the other
 * account meanwhile (goal: 1 s). The first request after a filter change includes compiling the matcher.
 *   node --import tsx bench/match-blackbox.ts     (NATS_URL, default nats://127.0.0.1:4222)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { connect } from 'nats';
import { scratchDir } from '../test/support/scratch-dir.ts';
import { buildDist, loadAverage, printRow } from './bench-rows.ts';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const dist = new URL('../dist/', import.meta.url).pathname;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** CPU ms a process has used so far (Linux /proc), or NaN: what the service spent, however busy the machine. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

buildDist();
const subject = `blackbox.filters.match.${randomBytes(6).toString('hex')}`;
const env = {
  ...process.env,
  DATA_DIR: scratchDir('cf-blackbox-'),
  PORT: String(await freePort()),
  HOST: '127.0.0.1',
  NATS_URL: natsUrl,
  NATS_MATCH_SUBJECT: subject,
};
const cli = (...args: string[]) =>
  execFileSync(process.execPath, [`${dist}cli/main.js`, ...args], { env })
    .toString()
    .trim();
const attacker = cli('account', 'create', 'mallory');
const attackerToken = cli('token', 'create', 'mallory', '--scopes', 'read:filters write:filters');
cli('account', 'create', 'bob');
const bobToken = cli('token', 'create', 'bob', '--scopes', 'read:filters write:filters');

const service = spawn(process.execPath, [`${dist}main.js`], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const url = `http://127.0.0.1:${env.PORT}`;
const nats = await connect({ servers: natsUrl });
try {
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const send = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const createFilter = async (token: string, title: string, keywords: readonly (readonly [string, boolean])[]) => {
    const created = await send(token, 'POST', '/api/v2/filters', {
      title,
      context: ['home'],
      keywords_attributes: keywords.map(([keyword, whole_word]) => ({ keyword, whole_word })),
    });
    if (!created.ok) throw new Error(`creating ${title}: ${created.status} ${await created.text()}`);
  };
  await createFilter(bobToken, 'bob', [['spoilers', true]]);
  /** Keywords spread over as many filters as the per-filter limit (20,000 characters) needs. */
  const createFilters = async (token: string, title: string, keywords: readonly (readonly [string, boolean])[]) => {
    let batch: (readonly [string, boolean])[] = [];
    let characters = 0;
    for (const keyword of keywords) {
      const length = [...keyword[0]].length;
      if (characters + length > 20_000) {
        await createFilter(token, `${title} ${batch.length}`, batch);
        batch = [];
        characters = 0;
      }
      batch.push(keyword);
      characters += length;
    }
    if (batch.length > 0) await createFilter(token, title, batch);
  };

  /** The hostile request and, meanwhile, bob's GETs every 50 ms: answer time and the slowest GET. */
  const measure = async (name: string, ask: () => Promise<unknown>) => {
    let slowest = 0;
    let gets = 0;
    let done = false;
    const poller = (async () => {
      while (!done) {
        const started = performance.now();
        const listed = await send(bobToken, 'GET', '/api/v2/filters');
        await listed.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - started);
        gets++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const started = performance.now();
    const cpuBefore = cpuMsOf(service.pid!);
    await ask();
    const answeredMs = performance.now() - started;
    const cpuMs = cpuMsOf(service.pid!) - cpuBefore;
    done = true;
    await poller;
    printRow(
      `black-box: ${name}, ms to answer (the service's CPU ms meanwhile; another account's slowest GET meanwhile, of ${gets})`,
      `${answeredMs.toFixed(0)} (CPU ${cpuMs.toFixed(0)})`,
      `${slowest.toFixed(0)} ms`,
      null,
      'answer <= 2000 ms, GET <= 1000 ms',
    );
  };
  const deleteFilters = async (token: string) => {
    const listed = (await (await send(token, 'GET', '/api/v2/filters')).json()) as { id: string }[];
    for (const { id } of listed) await send(token, 'DELETE', `/api/v2/filters/${id}`);
  };
  const statuses = (count: number, text: (k: number) => string) => ({
    statuses: Array.from({ length: count }, (_, k) => ({ id: String(1000 + k), content: text(k) })),
  });
  const overNats = (body: object) => async () => {
    const reply = await nats.request(`${subject}.${attacker}`, new TextEncoder().encode(JSON.stringify(body)), { timeout: 60_000 });
    if (!reply.string().startsWith('{"results"')) throw new Error(reply.string().slice(0, 200));
  };
  const overHttp = (body: object) => async () => {
    const reply = await send(attackerToken, 'POST', '/api/v2/filters/match', body);
    if (!reply.ok) throw new Error(`${reply.status} ${await reply.text()}`);
  };

  const comments = statuses(10, () => '<!---->'.repeat(14_000));
  await measure('NATS, 10 statuses of 98,000 characters of <!---->', overNats(comments));
  await measure('HTTP, the same', overHttp(comments));
  await measure('NATS, 10 statuses of <!--x--!> x 11,000', overNats(statuses(10, () => '<!--x--!>'.repeat(11_000))));

  // Within the account's 100,000 keyword characters: a ... a x 199 in each of 5 filters.
  for (let f = 0; f < 5; f++)
    await createFilter(
      attackerToken,
      `chain ${f}`,
      Array.from({ length: 199 }, (_, k) => ['a'.repeat(k + 1), false] as const),
    );
  const as = statuses(10, () => 'a'.repeat(99_000));
  await measure('NATS, keywords a ... a x 199 in 5 filters just created, 10 statuses of 99,000 a (compile included)', overNats(as));
  await measure('NATS, the same again (matcher cached)', overNats(as));
  await measure('HTTP, the same', overHttp(as));

  let seed = 1;
  const cjk = (count: number) =>
    Array.from({ length: count }, () => String.fromCodePoint(0x4e00 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 10_000))).join('');
  await deleteFilters(attackerToken);
  await createFilters(
    attackerToken,
    'cjk',
    Array.from({ length: 200 }, () => [cjk(500), false] as const),
  );
  // 3 bytes of UTF-8 each: 3 statuses of 100,000 CJK characters make about 900 KB.
  const cjkStatuses = statuses(3, () => cjk(100_000));
  await measure(
    'NATS, 200 keywords of 500 CJK characters (10,000 distinct) just created, 3 statuses of 100,000 CJK characters (compile included)',
    overNats(cjkStatuses),
  );
  await measure('NATS, the same again', overNats(cjkStatuses));

  await deleteFilters(attackerToken);
  // s, sss, ... s x 511: 256 lengths, 65,536 characters; keywords may not be longer than 512 characters.
  await createFilters(
    attackerToken,
    'sharp s',
    Array.from({ length: 256 }, (_, k) => ['s'.repeat(2 * k + 1), false] as const),
  );
  await measure(
    'NATS, keywords s, sss, ... s x 511 just created, 5 statuses of ß x 100,000 (starts inside ß)',
    overNats(statuses(5, () => 'ß'.repeat(100_000))),
  );
  console.log(`load average ${loadAverage()}`);
} finally {
  await nats.close();
  service.kill('SIGTERM');
}
