import assert from 'node:assert/strict';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { ReadYourWrites } from '../../src/projections/runtime/read-your-writes.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** Long enough that a wait which relied on polling would outlast the test's own time-out. */
const NEVER_MS = 3_600_000;

describe('read-your-writes on the stored checkpoint', function () {
  this.timeout(20_000);

  it('wakes as soon as another process moves the checkpoint past the write, without polling', async () => {
    const dir = scratchDir();
    const reads = SqliteReadStore.inDataDir(dir);
    const projector = SqliteReadStore.inDataDir(dir);
    await projector.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 3n });
    const waiting = new ReadYourWrites(reads, NEVER_MS).waitFor(7n, NEVER_MS);
    let done = false;
    void waiting.then(() => (done = true));
    await projector.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 5n });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(done, false, 'position 5 does not pass a write at 7');
    await projector.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 8n });
    assert.equal(await waiting, true);
    await Promise.all([reads.close(), projector.close()]);
  });

  it('answers at once when the checkpoint is already past, and false once the time is up', async () => {
    const reads = SqliteReadStore.inDataDir(scratchDir());
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 4n });
    const catchUp = new ReadYourWrites(reads, NEVER_MS);
    assert.equal(await catchUp.waitFor(4n, NEVER_MS), true);
    assert.equal(await catchUp.waitFor(5n, 50), false);
    await reads.close();
  });

  it('never rejects when reading the checkpoint fails: it reads again and answers true once past', async () => {
    const reads = SqliteReadStore.inDataDir(scratchDir());
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 9n });
    let failures = 2;
    const flaky = {
      checkpoint: async (projection: string) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('read store unreachable');
        }
        return reads.checkpoint(projection);
      },
      // A store that can tell of commits, and has none to tell: only reading again after the failure ends the wait.
      onChange: () => () => {},
    };
    assert.equal(await new ReadYourWrites(flaky, 5).waitFor(9n, NEVER_MS), true);
    assert.equal(failures, 0);
    failures = Number.MAX_SAFE_INTEGER;
    assert.equal(await new ReadYourWrites(flaky, 5).waitFor(10n, 50), false, 'a store that keeps failing is a time-out, not an error');
    await reads.close();
  });
});
