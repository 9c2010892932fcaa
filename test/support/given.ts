import assert from 'node:assert/strict';
import type { Decider } from '../../src/commands/handle-command.ts';

/** given(events).when(command).then(events) / .thenThrows(ErrorClass) / .thenNothing(), over a decider. */
export function specFor<Command, State, Event>(decider: Decider<Command, State, Event>) {
  return (given: readonly Event[]) => ({
    when(command: Command) {
      const run = () => decider.decide(command, given.reduce(decider.evolve, decider.initialState()));
      return {
        then(expected: readonly Event[]) {
          assert.deepEqual(run(), expected);
        },
        thenNothing() {
          assert.deepEqual(run(), []);
        },
        thenThrows(errorClass: new (...args: never[]) => Error, message?: string | RegExp) {
          assert.throws(run, (error: unknown) => {
            assert.ok(error instanceof errorClass, `expected ${errorClass.name}, got ${String(error)}`);
            if (typeof message === 'string') assert.equal(error.message, message);
            if (message instanceof RegExp) assert.match(error.message, message);
            return true;
          });
        },
      };
    },
  });
}
