import { setTimeout as delay } from 'node:timers/promises';
import { ConcurrencyError, type EventStore, type ExpectedRevision } from '../events/event-store.ts';
import { ConflictError } from './errors.ts';

export interface Decider<Command, State, Event> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export interface CommandOutcome<State, Event> {
  /** The stream's state after the command: what a response should show, whatever the read models say. */
  readonly state: State;
  readonly events: readonly Event[];
  /** Global position of the last appended event; null when the command changed nothing. */
  readonly position: bigint | null;
}

export interface HandleOptions {
  /** Metadata for the i-th of n events appended together. */
  readonly metadata: (index: number, count: number) => unknown;
  /** Re-runs after a concurrency conflict before giving up with a ConflictError. */
  readonly retries?: number;
}

/**
 * Load -> fold -> decide -> append with the revision just read. A lost race re-runs the whole handler
 * on fresh state (decide is pure, so that is safe), so two concurrent writes never lose an update.
 */
export async function handleCommand<Command, State, Event extends { type: string; data: unknown }>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamName: string,
  command: Command,
  options: HandleOptions,
): Promise<CommandOutcome<State, Event>> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt += 1) {
    const recorded = await store.readStream(streamName);
    const state = recorded.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as Event), decider.initialState());
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, position: null };
    const last = recorded.at(-1);
    const expected: ExpectedRevision = last ? last.revision : 'no_stream';
    try {
      const appended = await store.appendToStream(
        streamName,
        events.map((e, i) => ({ type: e.type, data: e.data, metadata: options.metadata(i, events.length) })),
        expected,
      );
      return { state: events.reduce(decider.evolve, state), events, position: appended.position };
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      if (attempt >= retries) throw new ConflictError('The filter was changed by another request at the same time; try again');
      await delay(5 * 2 ** attempt + Math.random() * 10);
    }
  }
}
