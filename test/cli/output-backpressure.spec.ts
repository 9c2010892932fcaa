import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { writeText } from '../../src/cli/stdout-lines.ts';

/** A reader that takes nothing until told to: writes past its buffer must wait. */
function heldReader() {
  const pending: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, done) {
      pending.push(done);
    },
  });
  return { stream, release: () => pending.splice(0).forEach((done) => done()) };
}

describe('CLI output: backpressure', () => {
  it('does not come back from a write until a reader that fell behind has drained', async () => {
    const reader = heldReader();
    let written = false;
    const write = writeText('x'.repeat(1000), reader.stream).then(() => (written = true));
    // Turns of the event loop in which the reader takes nothing: the write stays unfinished.
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written, false, 'still waiting for the reader');
    reader.release();
    await write;
    assert.equal(written, true);
  });

  it('comes back at once while the reader keeps up', async () => {
    const reader = heldReader();
    await writeText('short\n', reader.stream);
  });
});
