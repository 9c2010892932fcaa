import assert from 'node:assert/strict';
import { CatchUpLoop, IDLE, WORKED, type LoopClock, type LoopStep } from '../../src/projections/runtime/catch-up-loop.ts';
import { LOG_AGAIN_MS } from '../../src/projections/runtime/failure-streak.ts';

interface Timer {
  readonly ms: number;
  fired: boolean;
  cancelled: boolean;
  fire(): void;
}

/** Time that moves only when the test says so: every wait the loop starts is handed to the test. */
class ManualClock implements LoopClock {
  time = 1_000_000;
  private readonly timers: Timer[] = [];
  private waiting: ((timer: Timer) => void) | undefined;

  now(): number {
    return this.time;
  }

  after(ms: number, wake: () => void): () => void {
    const timer: Timer = {
      ms,
      fired: false,
      cancelled: false,
      fire: () => {
        timer.fired = true;
        wake();
      },
    };
    this.timers.push(timer);
    this.waiting?.(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** The next wait the loop starts (or the one it started already and nobody looked at). */
  nextWait(): Promise<Timer> {
    const open = this.timers.find((t) => !t.fired && !t.cancelled && !this.seen.has(t));
    if (open) return Promise.resolve(this.see(open));
    return new Promise((resolve) => (this.waiting = (timer) => resolve(this.see(timer))));
  }

  private readonly seen = new Set<Timer>();
  private see(timer: Timer): Timer {
    this.seen.add(timer);
    this.waiting = undefined;
    return timer;
  }
}

/** A step the test finishes by hand, one call at a time. */
class ScriptedStep {
  calls = 0;
  private pending: { resolve: (step: LoopStep) => void; reject: (error: unknown) => void }[] = [];
  private called: (() => void)[] = [];

  readonly run = (): Promise<LoopStep> => {
    this.calls += 1;
    for (const wake of this.called.splice(0)) wake();
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  /** Resolves once the step has been called `n` times in all. */
  async calledTimes(n: number): Promise<void> {
    while (this.calls < n) await new Promise<void>((resolve) => this.called.push(resolve));
  }

  finish(step: LoopStep): void {
    this.pending.shift()!.resolve(step);
  }

  fail(error: unknown): void {
    this.pending.shift()!.reject(error);
  }
}

describe('Catch-up loop', () => {
  it('runs one more step at once for a poke that came during a step, and waits for the next poke otherwise', async () => {
    const clock = new ManualClock();
    const step = new ScriptedStep();
    const loop = new CatchUpLoop(step.run, { idleRecheckMs: 60_000, clock });
    loop.start();
    await step.calledTimes(1);
    loop.poke();
    step.finish(IDLE);
    // No wait in between: the poke during the first step asked for the second.
    await step.calledTimes(2);
    step.finish(IDLE);
    const idle = await clock.nextWait();
    assert.equal(idle.ms, 60_000);
    assert.equal(step.calls, 2);
    loop.poke();
    assert.equal(idle.cancelled, true);
    await step.calledTimes(3);
    step.finish(WORKED);
    // A step that worked is followed by the next without waiting for a poke.
    await step.calledTimes(4);
    step.finish(IDLE);
    await clock.nextWait();
    await loop.stop();
  });

  it('stops only once the step under way has finished, and starts no other', async () => {
    const clock = new ManualClock();
    const step = new ScriptedStep();
    const loop = new CatchUpLoop(step.run, { idleRecheckMs: 60_000, clock });
    const order: string[] = [];
    loop.start();
    await step.calledTimes(1);
    const stopped = loop.stop().then(() => order.push('stopped'));
    assert.equal(loop.running, false);
    // Everything that could settle the stop without the step has had its turn by now.
    await new Promise((resolve) => setImmediate(resolve));
    order.push('step finishes');
    step.finish(WORKED);
    await stopped;
    assert.deepEqual(order, ['step finishes', 'stopped']);
    assert.equal(step.calls, 1);
  });

  it('backs a throwing step off, through pokes, and logs a streak once per throttle window', async () => {
    const clock = new ManualClock();
    const step = new ScriptedStep();
    const heard: { failures: number; log: boolean }[] = [];
    const loop = new CatchUpLoop(step.run, {
      idleRecheckMs: 60_000,
      clock,
      retryThrown: { delayMs: (failures) => failures * 100, onFailure: (_error, failures, log) => void heard.push({ failures, log }) },
    });
    loop.start();
    for (let n = 1; n <= 3; n += 1) {
      await step.calledTimes(n);
      step.fail(new Error('store down'));
      const backOff = await clock.nextWait();
      assert.equal(backOff.ms, n * 100);
      loop.poke();
      assert.equal(backOff.cancelled, false, 'a poke does not cut a back-off short');
      assert.equal(step.calls, n);
      if (n === 3) clock.time += LOG_AGAIN_MS;
      backOff.fire();
    }
    await step.calledTimes(4);
    step.fail(new Error('store down'));
    (await clock.nextWait()).fire();
    // A step that goes through ends the streak: the next failure is the first of a new one.
    await step.calledTimes(5);
    step.finish(IDLE);
    await clock.nextWait();
    loop.poke();
    await step.calledTimes(6);
    step.fail(new Error('store down again'));
    assert.equal((await clock.nextWait()).ms, 100);
    assert.deepEqual(heard, [
      { failures: 1, log: true },
      { failures: 2, log: false },
      { failures: 3, log: false },
      { failures: 4, log: true },
      { failures: 1, log: true },
    ]);
    await loop.stop();
  });
});
