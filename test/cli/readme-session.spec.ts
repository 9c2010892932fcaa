import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NodeProcess } from '../support/node-process.ts';
import { runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The README's "Example session" block, as written. */
function exampleSession(): string {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const block = /## Example session\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'README.md has an example session');
  return block;
}

/**
 * The session made runnable, and nothing else changed: the service is the one this test started (not
 * `npm start &` on port 3000, which another process may hold), and `FILTER=<the id above>` takes the id
 * the first curl printed.
 */
function runnable(session: string, url: string): string {
  assert.match(session, /^npm start &.*\n/);
  assert.match(session, /^FILTER=<the id above>$/m);
  return [
    'set -eu',
    session
      .replace(/^npm start &.*\n/, '')
      .replace(/^(curl -s -H "\$AUTH" http:\/\/localhost:3000\/api\/v2\/filters \\\n(?:.*\\\n)*.*)$/m, 'FIRST=$($1)\necho "$FIRST"')
      .replace(/^FILTER=<the id above>$/m, 'FILTER=$(echo "$FIRST" | node -e \'process.stdin.on("data", (d) => process.stdout.write(JSON.parse(d).id))\')')
      .replaceAll('http://localhost:3000', url),
  ].join('\n');
}

/** The JSON documents curl printed one after another (curl -s adds no newline), split where each one closes. */
function documents(output: string): unknown[] {
  const found: unknown[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < output.length; i++) {
    const char = output[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += depth === 0 ? ((start = i), 1) : 1;
    else if ((char === '}' || char === ']') && --depth === 0) found.push(JSON.parse(output.slice(start, i + 1)));
  }
  return found;
}

describe("the README's example session, run as written against npm start", function () {
  // Only ends a hang: npm start, then a handful of `npm run cli` processes, on a loaded machine.
  this.timeout(240_000);
  let server: NodeProcess;
  const dataDir = scratchDir('readme-');

  before(async () => {
    server = NodeProcess.npm(['start'], { DATA_DIR: dataDir, RATE_LIMITS: 'off' });
    await server.url();
  });

  after(async () => {
    await server?.kill('SIGTERM');
  });

  it('creates alice, her token and a filter, updates it, files a status, lists v1 and deletes it', async () => {
    const script = runnable(exampleSession(), await server.url());
    const ran = await runCommand('bash', ['-c', script], { DATA_DIR: dataDir });
    assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
    // One JSON answer per curl, in order: create, update, status, v1 listing, delete.
    const answers = documents(ran.stdout);
    assert.equal(answers.length, 5, ran.stdout);
    const [created, updated, status, v1, deleted] = answers as Record<string, unknown>[];
    assert.equal(created!.title, 'spoilers');
    assert.deepEqual(created!.context, ['home', 'public']);
    assert.equal(created!.filter_action, 'warn');
    assert.deepEqual(
      (created!.keywords as { keyword: string; whole_word: boolean }[]).map(({ keyword, whole_word }) => ({ keyword, whole_word })),
      [{ keyword: 'finale', whole_word: false }],
    );
    assert.equal(updated!.title, 'TV spoilers');
    assert.notEqual(updated!.expires_at, null);
    assert.equal(status!.status_id, '109031743575371913');
    assert.deepEqual(
      (v1 as unknown as { phrase: string }[]).map((record) => record.phrase),
      ['finale'],
    );
    assert.deepEqual(deleted, {});
  });
});
