import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scratchDir } from '../support/scratch-dir.ts';

// The runner's verdict (test/official-client/run.ts), on a stand-in clone: a git repository tagged v6.2.1
// holding the test files the runner takes, with tests written here (not the client's).
const FILES = [
  'streams/appendToStream.test.ts',
  'streams/appendToStream-batch-append.test.ts',
  'streams/appendToStream-errors.test.ts',
  'streams/readStream.test.ts',
  'streams/readAll.test.ts',
  'streams/subscribeToAll.test.ts',
  'streams/subscribeToAll-filters.test.ts',
  'connection/cluster.test.ts',
  'connection/not-leader.test.ts',
  'connection/reconnect/NotLeaderError.test.ts',
  'connection/reconnect/UnavailableError.test.ts',
  'connection/reconnect/all-nodes-down.test.ts',
  'connection/reconnect/mid-stream.test.ts',
  'connection/reconnect/no-reconnection.test.ts',
  'connection/deadline/deadline-effects.test.ts',
];

function fakeClone(bodies: Record<string, string>): string {
  const clone = scratchDir('client-clone-');
  const dir = join(clone, 'packages', 'test', 'src');
  for (const file of FILES) {
    const name = file.replace(/^streams\//, '');
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), bodies[name] ?? `test('passes ${name}', () => { expect(1).toBe(1); });\n`);
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', clone, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'tests');
  git('tag', 'v6.2.1');
  return clone;
}

function runOn(clone: string) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/official-client/run.ts', clone], {
    encoding: 'utf8',
    env: { ...process.env, OFFICIAL_CLIENT_WORK: scratchDir('client-work-') },
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

describe('npm run test:official-client: the exit status', function () {
  // Each run starts mocha on fifteen files (about 40 s at load 20 on two cores); some tests make two runs.
  this.timeout(300_000);

  it('is non-zero when a test not on the explained list fails, and names it', () => {
    const run = runOn(fakeClone({ 'readAll.test.ts': `test('reads everything', () => { expect(1).toBe(2); });\n` }));
    assert.equal(run.status, 1, run.out);
    assert.match(run.out, /FAILED readAll\.test\.ts: reads everything/);
  });

  it('is zero when every failure is on the list, and non-zero when a listed one passes (a stale list)', () => {
    const linkTo = (outcome: string) =>
      `describe('appendToStream', () => { describe('should successfully append to stream', () => { test('linkTo', () => { expect(1).toBe(${outcome}); }); }); });\n`;
    const known = runOn(fakeClone({ 'appendToStream.test.ts': linkTo('2') }));
    assert.equal(known.status, 0, known.out);
    assert.match(known.out, /known appendToStream\.test\.ts: appendToStream should successfully append to stream linkTo/);
    const stale = runOn(fakeClone({ 'appendToStream.test.ts': linkTo('1') }));
    assert.equal(stale.status, 1, stale.out);
    assert.match(stale.out, /STALE/);
  });

  it('is non-zero when a hook fails or a test is skipped without a listed reason', () => {
    const hook = runOn(fakeClone({ 'readStream.test.ts': `beforeAll(() => { throw new Error('no node'); });\ntest('reads', () => {});\n` }));
    assert.equal(hook.status, 1, hook.out);
    const skipped = runOn(fakeClone({ 'readStream.test.ts': `test.skip('reads', () => {});\n` }));
    assert.equal(skipped.status, 1, skipped.out);
  });
});
