import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadConfig } from '../../src/config.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Runs the API process to its end (killed and failed if it keeps running: it should not even start). */
async function start(url: string): Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: scratchDir(), LOG_LEVEL: 'info', MASTODON_DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  const lines = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines, stderr };
}

describe('Mastodon mode: a MASTODON_DATABASE_URL that cannot be used ends the start at once, in one line', function () {
  this.timeout(60_000);

  it('not a PostgreSQL URL: refused with the settings, before anything opens (one fatal line, as bad-settings.spec.ts shows)', () => {
    for (const url of ['mysql://mastodon@127.0.0.1/mastodon', 'mastodon_production', 'postgresql://']) {
      assert.throws(() => loadConfig({ MASTODON_DATABASE_URL: url }), /^BadSetting: MASTODON_DATABASE_URL must be a PostgreSQL URL such as postgresql:\/\//);
    }
    assert.equal(
      loadConfig({ MASTODON_DATABASE_URL: 'postgresql://mastodon@db:5432/mastodon_production' }).mastodonDatabaseUrl,
      'postgresql://mastodon@db:5432/mastodon_production',
    );
  });

  const cases: [string, string, RegExp][] = [
    [
      'a database that does not exist',
      'postgresql://postgres@127.0.0.1:5432/no_such_mastodon_database',
      /^could not start: MASTODON_DATABASE_URL \(127\.0\.0\.1:5432\/no_such_mastodon_database\) cannot be used: database "no_such_mastodon_database" does not exist$/,
    ],
    [
      'a database without Mastodon’s tables',
      'postgresql://postgres@127.0.0.1:5432/template1',
      /^could not start: MASTODON_DATABASE_URL \(127\.0\.0\.1:5432\/template1\) is not a Mastodon database: no oauth_access_tokens, users, accounts table$/,
    ],
  ];
  for (const [what, url, message] of cases) {
    it(what, async () => {
      const ended = await start(url);
      assert.equal(ended.code, 1, JSON.stringify(ended.lines) + ended.stderr);
      assert.equal(ended.stderr, '');
      assert.equal(ended.lines.length, 1, JSON.stringify(ended.lines));
      assert.equal(ended.lines[0]!.level, 60);
      assert.match(String(ended.lines[0]!.msg), message);
    });
  }
});
