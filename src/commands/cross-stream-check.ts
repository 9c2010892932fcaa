/**
 * A rule that spans streams (the per-account limits span an account's filters), kept with a second
 * stream that every write the rule counts goes through with an expected revision: neither store appends
 * to two streams at once, so the second stream is written first for what the rule must refuse (a
 * reservation, which conflicts when another writer got there first) and after for what can only relieve it.
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
  /** The events were stored. */
  appended(): Promise<void>;
  /** The store answered that it stored none of them (a conflict, an append too large). */
  notAppended(): Promise<void>;
}
