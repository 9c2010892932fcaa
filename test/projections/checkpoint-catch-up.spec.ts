import assert from 'node:assert/strict';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { CheckpointCatchUp } from '../../src/projections/runtime/stored-checkpoint-catch-up.ts';
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
    const waiting = new CheckpointCatchUp(reads, NEVER_MS).waitFor(7n, NEVER_MS);
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
    const catchUp = new CheckpointCatchUp(reads, NEVER_MS);
    assert.equal(await catchUp.waitFor(4n, NEVER_MS), true);
    assert.equal(await catchUp.waitFor(5n, 50), false);
    await reads.close();
  });
});
