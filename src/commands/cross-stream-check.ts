import type { AppendResult, StreamAppend } from '../events/event-store.ts';

/**
 * A rule that spans streams (the per-account limits span an account's filters), kept with a second
 * stream that every write the rule counts goes through with an expected revision. What the rule must
 * refuse is a reservation on the second stream, which conflicts when another writer got there first: in
 * the same transaction as the command's events where the store can append to two streams at once (SQLite),
 * else appended before them (EventStoreDB). What can only relieve the rule is written after them.
 */
export interface CrossStreamCheck<Command, State, Event> {
  /** The command as the decider should judge it, from the stream's state and what the other stream holds now. */
  readonly prepare: (command: Command, state: State) => Promise<Command>;
  /**
   * Called with the decided events before they are appended. A ConcurrencyError (the other stream moved
   * since prepare read it) re-runs the command on fresh state; the settlement hears how the append went.
   */
  readonly reserve: (state: State, events: readonly Event[]) => Promise<Settlement | null>;
  /** The run that prepare began is over, whichever way (reserved, nothing to append, a failure): called once per prepare. */
  readonly end?: () => void;
}

/** Never throws: the append's own outcome decides the request, and a settlement that fails only logs. */
export interface Settlement {
  /**
   * The second stream's write, to be made in one transaction with the command's own events where the
   * store can (EventStore.appendWith): then the two are stored together or not at all, and prepare's
   * turn is held until that append is answered.
   */
  readonly alongside?: StreamAppend;
  /** The events were stored (with `alongside`, stored where this says). */
  appended(alongside?: AppendResult): Promise<void>;
  /** The store answered that it stored none of them (a conflict, an append too large). */
  notAppended(): Promise<void>;
}
