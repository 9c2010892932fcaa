import assert from 'node:assert/strict';
import { onePerTurn } from '../../src/shared/one-per-turn.ts';

describe('onePerTurn: an answer shared within a turn of the event loop, read again in the next', () => {
  const counting = () => {
    let reads = 0;
    return { read: onePerTurn(() => (reads += 1)), reads: () => reads };
  };

  it('reads once for every call of a turn once its microtasks run, as the requests a batch of counts wakes', async () => {
    const stamp = counting();
    await Promise.resolve();
    const seen = [stamp.read(), stamp.read()];
    await Promise.all([1, 2, 3].map(async () => seen.push(await Promise.resolve().then(() => stamp.read()))));
    assert.deepEqual(seen, [1, 1, 1, 1, 1]);
    assert.equal(stamp.reads(), 1);
  });

  it("forgets an answer read in a callback's own code before that callback's microtasks: earlier, never later", async () => {
    const stamp = counting();
    await new Promise((resolve) => setImmediate(resolve));
    const inCallback = await new Promise<number>((resolve) => {
      setImmediate(() => {
        const first = stamp.read();
        void Promise.resolve().then(() => resolve(first + stamp.read()));
      });
    });
    assert.equal(inCallback, 3);
  });

  it('reads again in the next turn, and after any I/O callback', async () => {
    const stamp = counting();
    assert.equal(stamp.read(), 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stamp.read(), 2);
    await new Promise((resolve) => {
      process.nextTick(resolve);
    });
    assert.equal(stamp.read(), 3);
  });

  it('keeps nothing from a read that throws', () => {
    let calls = 0;
    const read = onePerTurn(() => {
      calls += 1;
      if (calls === 1) throw new Error('locked');
      return calls;
    });
    assert.throws(read, /locked/);
    assert.equal(read(), 2);
    assert.equal(read(), 2);
  });
});
