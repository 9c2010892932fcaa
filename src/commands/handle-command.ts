import { setTimeout as delay } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { AppendTooLargeError, ConcurrencyError, type AppendResult, type EventStore, type ExpectedRevision, type RecordedEvent } from '../events/event-store.ts';
import { ConflictError } from './errors.ts';
import type { StreamStateCache } from './stream-state-cache.ts';
import { backOffMs, type BackOff } from '../shared/async-retry.ts';
import { isErrorNamed } from '../shared/error-by-name.ts';
import { KeyedLock } from '../shared/keyed-lock.ts';
import type { CrossStreamCheck, Settlement } from './cross-stream-check.ts';

export interface Decider<Command, State, Event> {
  // Function-valued members, not methods: pure functions with no `this`, passed around as values.
  readonly decide: (command: Command, state: State) => Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

export interface CommandOutcome<State, Event> {
  /** The stream's state after the command: what a response should show, whatever the read models say. */
  readonly state: State;
  readonly events: readonly Event[];
  /** Global position of the last appended event; null when the command changed nothing. */
  readonly position: bigint | null;
}

export interface HandleOptions<State, Event, Command = unknown> {
  /**
   * Reads a stored event as the decider's event, upcast to its current shape; null skips an event this
   * code cannot read (a type or version written by a newer release).
   */
  readonly readEvent: (recorded: RecordedEvent) => Event | null;
  /** Metadata for the i-th of n events appended together. */
  readonly metadata: (index: number, count: number, event: Event) => unknown;
  /** Re-runs after a concurrency conflict before giving up with a ConflictError. */
  readonly retries?: number;
  /** Folded states to start from, so that only the events after them are read (and kept up to date here). */
  readonly states?: StreamStateCache<State>;
  /**
   * The id of the i-th event this command appends, the same on every run of the same command
   * (command-event-ids.ts): a run that finds them in the stream knows the command is done already.
   */
  readonly eventId?: (index: number) => string;
  /** The command may have run before (a repeated Idempotency-Key): its events are looked for in the whole stream. */
  readonly mayHaveRun?: boolean;
  /** A rule that spans streams (cross-stream-check.ts), judged on each run before the append. */
  readonly check?: CrossStreamCheck<Command, State, Event>;
}

/**
 * The position of the last event of an earlier run of this command, when the stream holds it (found by
 * the id of its first event, then the ids that follow); null when the command has not been run.
 */
function earlierRun(recorded: readonly RecordedEvent[], eventId: (index: number) => string): bigint | null {
  const first = eventId(0);
  const start = recorded.findIndex((event) => event.eventId === first);
  if (start < 0) return null;
  let end = start;
  while (end + 1 < recorded.length && recorded[end + 1]!.eventId === eventId(end + 1 - start)) end += 1;
  return recorded[end]!.position;
}

/**
 * Whether the events stored right after `expected` carry the metadata this run sent (a store may add
 * keys of its own, as the EventStoreDB adapter's chain hash). An append of ids already stored there is
 * answered as a success (sqlite-replayed-append.ts; the server's CommitDecision.Idempotent) without
 * saying it stored nothing: a run racing another run of the same command in another process (a repeated
 * Idempotency-Key) can only tell by reading. The runs differ in their request's id.
 */
async function storedByThisRun(store: EventStore, streamName: string, expected: ExpectedRevision, sent: unknown): Promise<boolean> {
  // A read that fails keeps the settlement as it was: the ledger may then count high, never low.
  const read = await store.readStream(streamName, typeof expected === 'bigint' ? { after: expected } : {}).catch(() => null);
  if (read === null) return true;
  const [first] = read;
  const stored = first?.metadata;
  if (typeof sent !== 'object' || sent === null || typeof stored !== 'object' || stored === null) return isDeepStrictEqual(sent, stored);
  return Object.entries(sent).every(([key, value]) => isDeepStrictEqual((stored as Record<string, unknown>)[key], value));
}

/**
 * How long to wait before re-running after the n-th lost race (from 0): 5 ms doubling each time, plus up
 * to 10 ms of jitter so that writers that collided do not collide again in step.
 */
export const LOST_RACE_BACK_OFF: BackOff = { firstMs: 5, jitterMs: 10 };

export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return backOffMs(LOST_RACE_BACK_OFF, attempt, random);
}

/**
 * Commands on one stream through one store take turns: while one waits for its append (in the store's
 * next group commit), another on the same stream would read the same revision and lose the race. Races
 * remain only between stores (other processes), and the retries below settle those.
 */
const turnsByStore = new WeakMap<EventStore, KeyedLock>();

function turnsOf(store: EventStore): KeyedLock {
  let turns = turnsByStore.get(store);
  if (!turns) turnsByStore.set(store, (turns = new KeyedLock()));
  return turns;
}

/**
 * Load -> fold -> decide -> append with the revision just read. A lost race re-runs the whole handler
 * on fresh state (decide is pure, so that is safe), so two concurrent writes never lose an update.
 */
export function handleCommand<Command, State, Event extends { type: string; data: unknown }>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamName: string,
  command: Command,
  options: HandleOptions<State, Event, Command>,
): Promise<CommandOutcome<State, Event>> {
  return turnsOf(store).run(streamName, () => decideAndAppend(store, decider, streamName, command, options));
}

async function decideAndAppend<Command, State, Event extends { type: string; data: unknown }>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamName: string,
  command: Command,
  options: HandleOptions<State, Event, Command>,
): Promise<CommandOutcome<State, Event>> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt += 1) {
    // The cache may hold a fold past the command's own events, which would hide them.
    const cached = options.mayHaveRun ? undefined : options.states?.get(streamName);
    const recorded = await (cached ? store.readStream(streamName, { after: cached.revision }) : store.readStream(streamName));
    const state = recorded.reduce(
      (s, stored) => {
        const event = options.readEvent(stored);
        return event === null ? s : decider.evolve(s, event);
      },
      cached ? cached.state : decider.initialState(),
    );
    const revision = recorded.at(-1)?.revision ?? cached?.revision ?? null;
    if (revision !== null && recorded.length > 0) options.states?.remember(streamName, revision, state);
    // The same command run again (a retry after a timeout, or the loser of a race with itself): done already.
    const done = options.eventId ? earlierRun(recorded, options.eventId) : null;
    if (done !== null) return { state, events: [], position: done };
    let judged: Command;
    let events: Event[];
    let settlement: Settlement | null = null;
    try {
      judged = options.check ? await options.check.prepare(command, state) : command;
      events = decider.decide(judged, state);
      // A conflict here (the other stream moved since prepare read it) re-runs the command like one below.
      if (events.length > 0 && options.check) settlement = await options.check.reserve(state, events);
    } catch (error) {
      options.check?.end?.();
      if (!isErrorNamed(error, ConcurrencyError)) throw error;
      if (attempt >= retries) throw new ConflictError('The filter was changed by another request at the same time; try again');
      await delay(retryDelayMs(attempt));
      continue;
    }
    // Before the append: the other stream's turn (cross-stream-check.ts) covers only its own write, which
    // is made now unless it goes with this append.
    const alongside = settlement?.alongside;
    if (!alongside) options.check?.end?.();
    if (events.length === 0) return { state, events, position: null };
    if (alongside && !store.appendWith) throw new TypeError('a settlement appends alongside, on a store that cannot');
    const expected: ExpectedRevision = revision ?? 'no_stream';
    let appended: AppendResult;
    const toAppend = events.map((e, i) => ({
      ...(options.eventId ? { id: options.eventId(i) } : {}),
      type: e.type,
      data: e.data,
      metadata: options.metadata(i, events.length, e),
    }));
    let alongsideAt: AppendResult | null = null;
    try {
      if (alongside) {
        const joint = await store.appendWith!(streamName, toAppend, expected, alongside);
        appended = joint;
        alongsideAt = joint.alongside;
      } else {
        appended = await store.appendToStream(streamName, toAppend, expected);
      }
    } catch (error) {
      const conflict = isErrorNamed(error, ConcurrencyError);
      // Only these say the append surely wrote nothing; after any other failure it may have been stored.
      if (conflict || isErrorNamed(error, AppendTooLargeError)) await settlement?.notAppended();
      if (!conflict) throw error;
      if (attempt >= retries) throw new ConflictError('The filter was changed by another request at the same time; try again');
      await delay(retryDelayMs(attempt));
      continue;
    } finally {
      if (alongside) options.check?.end?.();
    }
    // A joint append says itself whether it was another run's replay (then it stored nothing alongside).
    const replayed = alongside
      ? alongsideAt === null
      : settlement && options.eventId && !(await storedByThisRun(store, streamName, expected, toAppend[0]!.metadata));
    if (settlement && replayed) {
      // Another run stored these events and settled for them: this one's reservation is given back.
      await settlement.notAppended();
      return { state: events.reduce(decider.evolve, state), events: [], position: appended.position };
    }
    await settlement?.appended(alongsideAt ?? undefined);
    // Not remembered: the cache holds only folds of stored events, which the next command reads anyway.
    return { state: events.reduce(decider.evolve, state), events, position: appended.position };
  }
}
