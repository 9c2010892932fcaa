import assert from 'node:assert/strict';
import { KeyedLock } from '../../src/shared/keyed-lock.ts';

/** A promise settled from outside, so the test decides when each piece of work ends. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('KeyedLock', () => {
  it('runs work on one key one at a time, in the order asked', async () => {
    const turns = new KeyedLock();
    const started: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      turns.run('filter-a', async () => {
        started.push(`w${i}`);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    assert.deepEqual(started, ['w0']);
    gates[0]!.resolve();
    assert.equal(await runs[0], 0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, ['w0', 'w1']);
    gates[1]!.resolve();
    gates[2]!.resolve();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
    assert.deepEqual(started, ['w0', 'w1', 'w2']);
  });

  it('runs work on another key meanwhile', async () => {
    const turns = new KeyedLock();
    const held = deferred();
    const first = turns.run('filter-a', () => held.promise);
    assert.equal(await turns.run('filter-b', async () => 'other'), 'other');
    held.resolve();
    await first;
  });

  it('goes on after a failure, which reaches only its own caller', async () => {
    const turns = new KeyedLock();
    const failing = turns.run('filter-a', () => Promise.reject(new Error('lost')));
    const next = turns.run('filter-a', async () => 'next');
    await assert.rejects(failing, /lost/);
    assert.equal(await next, 'next');
  });

  it('holds no key once its work is done', async () => {
    const turns = new KeyedLock();
    await Promise.all(Array.from({ length: 50 }, (_, i) => turns.run(`filter-${i % 5}`, async () => i)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(turns.size, 0);
  });
  it('holds a key from acquire until its release, then lets the next task in; a second release does nothing', async () => {
    const turns = new KeyedLock();
    const release = await turns.acquire('account-a');
    const order: string[] = [];
    const next = turns.run('account-a', async () => void order.push('next'));
    const other = turns.run('account-b', async () => void order.push('other key'));
    await other;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['other key']);
    release();
    release();
    await next;
    assert.deepEqual(order, ['other key', 'next']);
    const again = await turns.acquire('account-a');
    again();
    assert.equal(turns.size <= 1, true);
  });
});
