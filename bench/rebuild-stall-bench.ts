/**
 * How long `projections rebuild` makes the live single-process service wait, whatever the log size:
 *   node --import tsx bench/rebuild-stall-bench.ts [events=150000]
 * The service (`src/main.ts`, its own projector in process) runs on a log marked as projected. One client
 * sends GET /api/v2/filters and another POST /api/v2/filters then DELETE of that filter (each waits for the
 * read models; the longest pair is reported as the POST's figure), one after
 * the other, first for as long as the rebuild will take without it (the baseline), then during the real
 * CLI command in its own process. Prints the longest GET and POST of each phase.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { count, loadAverage, markProjected, printRow } from './bench-rows.ts';
import { logFixture } from './log-fixture.ts';

const events = Number(process.argv[2] ?? 150_000);
const fixture = await logFixture(events);
await markProjected(fixture.dir, fixture.lastPosition);

const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, DATA_DIR: fixture.dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  let buffered: string | null = '';
  // The listening line is at level info; the access log lines after it are read and dropped.
  service.stdout.on('data', (chunk: Buffer) => {
    if (buffered === null) return;
    buffered += chunk.toString();
    const found = /"url":"([^"]+)"/.exec(buffered);
    if (!found) return;
    buffered = null;
    resolve(found[1]!);
  });
  service.once('exit', () => reject(new Error('the service ended before it listened')));
});

interface Phase {
  readonly longestGet: number;
  readonly longestPost: number;
  readonly gets: number;
  readonly posts: number;
}

/** Sends GETs and POSTs one after the other, each client on its own, until `done` resolves. */
async function load(done: Promise<unknown>): Promise<Phase> {
  let over = false;
  void done.finally(() => (over = true));
  const headers = { authorization: `Bearer ${fixture.token}`, 'content-type': 'application/json' };
  const client = async (send: () => Promise<Response>) => {
    let longest = 0;
    let sent = 0;
    while (!over) {
      const started = performance.now();
      const response = await send();
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`the service answered ${response.status}`);
      longest = Math.max(longest, performance.now() - started);
      sent += 1;
    }
    return { longest, sent };
  };
  const body = JSON.stringify({ title: 'stall', context: ['home'], keywords_attributes: [{ keyword: 'stall' }] });
  const [get, post] = await Promise.all([
    client(() => fetch(`${url}/api/v2/filters`, { headers })),
    // Each create is followed by its delete, so the account stays within its limit of filters.
    client(async () => {
      const created = await fetch(`${url}/api/v2/filters`, { method: 'POST', headers, body });
      if (!created.ok) return created;
      const { id } = (await created.json()) as { id: string };
      return fetch(`${url}/api/v2/filters/${id}`, { method: 'DELETE', headers });
    }),
  ]);
  return { longestGet: get.longest, longestPost: post.longest, gets: get.sent, posts: post.sent };
}

const rebuild = () =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'projections', 'rebuild'], {
      env: { ...process.env, DATA_DIR: fixture.dir },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    cli.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`projections rebuild exited with ${code}`))));
  });

try {
  // How long a rebuild takes, measured once beforehand, so the baseline phase lasts as long.
  const dry = performance.now();
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--version']);
  const startUp = performance.now() - dry;
  const rebuilding = rebuild();
  const during = await load(rebuilding);
  const rebuildMs = await rebuilding;
  const before = await load(new Promise((resolve) => setTimeout(resolve, rebuildMs)));
  process.stderr.write(
    `rebuild of ${count(events)} events took ${count(rebuildMs)} ms (CLI start-up ${count(startUp)} ms); during it ${during.gets} GETs and ${during.posts} POSTs, ` +
      `then ${before.gets} GETs and ${before.posts} POSTs without it; load average ${loadAverage()}\n`,
  );
  printRow(
    `longest GET during a rebuild of ${count(events)} events`,
    `${count(during.longestGet)} ms`,
    `${count(before.longestGet)} ms (no rebuild)`,
    during.longestGet / before.longestGet,
    'at most 100 ms more than without',
  );
  printRow(
    `longest POST during a rebuild of ${count(events)} events`,
    `${count(during.longestPost)} ms`,
    `${count(before.longestPost)} ms (no rebuild)`,
    during.longestPost / before.longestPost,
    'at most 1,000 ms',
  );
} finally {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  rmSync(fixture.dir, { recursive: true, force: true });
}
