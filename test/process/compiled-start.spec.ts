import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { securityCheckLine } from '../support/log-lines.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** The command line of a running process, from /proc (Linux). */
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/**
 * Production runs the compiled JavaScript in dist/ with plain node: `npm start`, `npm run cli` and the
 * `content-filters` command, as a user runs them. The other process tests run the sources through tsx.
 */
describe('Compiled JavaScript (npm start, npm run cli, content-filters)', function () {
  this.timeout(180_000);
  let dir: string;
  let server: NodeProcess;
  let url: string;

  before(async () => {
    // What `npm start` would do first anyway, but without the 20 s limit on its first log line.
    const build = await runCommand(process.execPath, ['scripts/build.js', '--if-stale'], {});
    assert.equal(build.code, 0, build.stderr);
    dir = scratchDir('compiled-');
    server = NodeProcess.npm(['start'], { DATA_DIR: dir });
    url = await server.url();
  });

  after(async () => {
    await server?.kill('SIGTERM');
  });

  it('npm start serves the API from dist/ with plain node, without tsx', async () => {
    const listening = await server.waitForLog((line) => /listening/.test(String(line.msg)));
    const args = commandLine(Number(listening.pid));
    assert.ok(
      args.some((arg) => arg.endsWith('dist/main.js')),
      args.join(' '),
    );
    assert.ok(!args.some((arg) => arg.includes('tsx')), args.join(' '));
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
  });

  it('npm run cli and the content-filters command make an account and a token the server accepts', async () => {
    const username = `compiled${process.pid}`;
    const created = await runCommand('npm', ['run', '--silent', 'cli', '--', 'account', 'create', username], { DATA_DIR: dir });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^[0-9]+\n$/);

    const token = await runCommand(process.execPath, ['bin/content-filters.js', 'token', 'create', username, '--scopes', 'read:filters'], { DATA_DIR: dir });
    assert.equal(token.code, 0, token.stderr);
    const filters = await fetch(`${url}/api/v2/filters`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    assert.equal(filters.status, 200);
    assert.deepEqual(await filters.json(), []);
  });

  it('names the TypeScript file and line of a refused webmail request, read through source maps', async () => {
    const uri = '/webmail/?_task=login&_action=login';
    const refused = await fetch(`${url}${uri}`, { method: 'POST', body: new URLSearchParams({ _user: 'a', _pass: 'b' }) });
    assert.equal(refused.status, 401);
    const log = join(dir, 'logs', 'errors.log');
    assert.ok(existsSync(log));
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    assert.match(lines.at(-1)!, securityCheckLine('', 'POST', uri, true));
  });
});
