import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const ROOT = new URL('../../', import.meta.url).pathname;

// Prepared statements the code no longer holds are collected by V8 whenever it likes, also from a
// background task with no JavaScript context entered. better-sqlite3 12 compiled against Node 24.19's
// headers or later aborts the process right there (nodejs/node#65446); `.ci/run` and the Dockerfile
// compile it against 24.18.1's. This runs that collection in a process of its own on the Node under test.
const SCRIPT = `
const Database = require('better-sqlite3');
const db = new Database(':memory:');
for (let i = 0; i < 20000; i += 1) db.prepare('SELECT ' + i).get();
globalThis.gc();
setTimeout(() => {
  for (let i = 0; i < 20000; i += 1) db.prepare('SELECT ' + i).get();
  globalThis.gc();
  console.log('collected');
}, 20);
`;

describe('the better-sqlite3 addon on this Node', function () {
  this.timeout(120_000);

  it('survives the collection of statements nothing holds any more, and the exit after it', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', SCRIPT], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.signal, null, `${process.version} aborted:\n${run.stderr.slice(0, 600)}`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'collected\n');
  });
});
