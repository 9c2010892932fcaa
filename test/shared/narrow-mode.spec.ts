import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { narrowMode, PRIVATE_FILE_MODE } from '../../src/shared/private-files.ts';

// A second API process or the projector on the same DATA_DIR creates and deletes SQLite's -journal
// files while this process tightens the directory at its start (seen in CI: a start that failed on
// `ENOENT: lstat events.sqlite-journal`). A file gone between the listing and the lstat is nothing to do.
describe('narrowMode: one file of the data directory narrowed to its owner', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cf-narrow-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a file that is gone, when narrowed, then it says gone and throws nothing', () => {
    assert.deepEqual(narrowMode(join(dir, 'events.sqlite-journal'), PRIVATE_FILE_MODE), { kind: 'gone' });
  });

  it('given a 0644 file, when narrowed, then it is 0600 and says from and to', () => {
    const path = join(dir, 'events.sqlite');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    assert.deepEqual(narrowMode(path, PRIVATE_FILE_MODE), { kind: 'changed', from: 0o644, to: 0o600 });
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('given a 0400 file, when narrowed, then it is left as it is', () => {
    const path = join(dir, 'key');
    writeFileSync(path, '');
    chmodSync(path, 0o400);
    assert.deepEqual(narrowMode(path, PRIVATE_FILE_MODE), { kind: 'tight' });
    assert.equal(statSync(path).mode & 0o777, 0o400);
  });
});
