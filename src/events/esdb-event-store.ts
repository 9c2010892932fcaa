import {
  ANY,
  DeadlineExceededError,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  isCommandError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult as ClientAppendResult,
  type JSONType,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import { EsdbAppendWatch } from './esdb-append-watch.ts';
import { isAfter, packPosition, unpackPosition } from './esdb-position.ts';
import { FILTER_CATEGORY } from './filter-events.ts';
import {
  AppendTooLargeError,
  ConcurrencyError,
  EventStoreUnavailableError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './event-store.ts';

/** This project's streams: `filter-<id>`. Everything else in $all (system and foreign streams) is skipped. */
const STREAM_PREFIX = `${FILTER_CATEGORY}-`;
const READ_PAGE = 512;

type EsdbRecorded = NonNullable<AllStreamResolvedEvent['event']>;

/** The port's expected revision in the client's words; the only place that knows them. */
export function toClientRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (expected === 'any') return ANY;
  return expected;
}

function toRecorded(event: EsdbRecorded, position: bigint): RecordedEvent {
  return {
    eventId: event.id,
    streamName: event.streamId,
    revision: event.revision,
    position,
    type: event.type,
    data: event.isJson ? event.data : JSON.parse(Buffer.from(event.data).toString('utf8')),
    metadata: event.metadata instanceof Uint8Array ? {} : (event.metadata ?? {}),
    recordedAt: event.created.toISOString(),
  };
}

/** Command errors that say the server could not be reached or could not answer in time, not that the request was wrong. */
const UNREACHABLE = [UnavailableError, DeadlineExceededError, TimeoutError, NotLeaderError];

function unavailable(error: unknown): never {
  if (error instanceof Error && isCommandError(error) && !UNREACHABLE.some((type) => error instanceof type)) throw error;
  throw new EventStoreUnavailableError(`EventStoreDB: ${(error as Error).message}`);
}

/**
 * EventStoreDB / KurrentDB adapter (`EVENTSTORE_URL`, e.g. `esdb://localhost:2113?tls=false`). Positions
 * are full $all positions (commit and prepare, packed by esdb-position.ts), so every event of a multi-event
 * append has its own. The client reconnects by itself for calls; `onAppend` is esdb-append-watch.ts.
 */
export class EsdbEventStore implements EventStore {
  private readonly appends: EsdbAppendWatch;

  constructor(private readonly client: EventStoreDBClient) {
    this.appends = new EsdbAppendWatch(client, STREAM_PREFIX);
  }

  static connect(url: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(url));
  }

  async appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('nothing to append');
    // Given ids go to the server as they are: an append of ids it already stored right after the expected
    // revision is answered as the first one was (IndexCommitter.CheckCommit, CommitDecision.Idempotent).
    const data = events.map((e) => jsonEvent({ ...(e.id ? { id: e.id } : {}), type: e.type, data: e.data as JSONType, metadata: e.metadata ?? {} }));
    let result: ClientAppendResult;
    try {
      result = await this.client.appendToStream(streamName, data, { expectedRevision: toClientRevision(expected) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) throw new ConcurrencyError(streamName, expected, error.actualVersion);
      // MaxAppendSize (default 1 MiB) counts data, metadata and type of all the append's events: nothing was written.
      if (error instanceof MaxAppendSizeExceededError) throw new AppendTooLargeError(error.maxAppendSize);
      return unavailable(error);
    }
    const position = await this.lastPositionOf(streamName, result, events.length);
    this.appends.heard(position);
    return { nextRevision: result.nextExpectedRevision, position };
  }

  /**
   * The server answers an append with the position of its first event (commit and prepare both set to the
   * commit position), so for several events the last one's position is read back from $all: the appended
   * events are the `count` events that start there. A successful append always reports a position; -1
   * would only make a reader stop waiting early.
   */
  private async lastPositionOf(streamName: string, result: ClientAppendResult, count: number): Promise<bigint> {
    if (!result.position) return -1n;
    if (count === 1) return packPosition(result.position);
    let last: Position = result.position;
    try {
      for await (const resolved of this.client.readAll({ fromPosition: result.position, maxCount: count, direction: FORWARDS })) {
        const event = resolved.event;
        if (event?.streamId === streamName && event.revision <= result.nextExpectedRevision && isAfter(event.position, last)) last = event.position;
      }
    } catch {
      // The events are stored: answering the append matters more than waiting for all of them to be projected.
    }
    return packPosition(last);
  }

  async readStream(streamName: string, { after }: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const fromRevision = after === undefined || after < 0n ? START : after + 1n;
      for await (const resolved of this.client.readStream(streamName, { direction: FORWARDS, fromRevision })) {
        // Servers before 22.6 give no position when reading a stream; handlers only use revisions.
        const event = resolved.event as EsdbRecorded | undefined;
        if (event) events.push(toRecorded(event, event.position ? packPosition(event.position) : -1n));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      return unavailable(error);
    }
    return events;
  }

  /**
   * Reads $all forwards from the event at `after` (the server starts a read at the position it is given,
   * inclusively) and keeps this project's events that come after it, so reading on from any event's
   * position, even one inside a multi-event append, returns exactly the events that follow it. A value
   * whose commit half is 0 is no event's position (a checkpoint kept before positions were full ones):
   * reading starts at the beginning of $all then, and the projections' revision guards make that harmless.
   */
  async readAll({ after: from, limit }: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    const floor = from === null ? null : unpackPosition(from);
    let cursor: Position | null = floor && floor.commit > 0n ? floor : null;
    for (;;) {
      const start: ReadPosition = cursor ?? START;
      let raw = 0;
      const page = this.client.readAll({ fromPosition: start, maxCount: READ_PAGE, direction: FORWARDS });
      try {
        for await (const resolved of page) {
          raw += 1;
          const event = resolved.event;
          if (!event) continue;
          if (cursor && !isAfter(event.position, cursor)) continue;
          cursor = event.position;
          if (floor && !isAfter(event.position, floor)) continue;
          if (!event.streamId.startsWith(STREAM_PREFIX)) continue;
          found.push(toRecorded(event, packPosition(event.position)));
          if (found.length >= limit) break;
        }
      } catch (error) {
        return unavailable(error);
      }
      if (found.length >= limit) {
        await page.cancel();
        return found;
      }
      if (raw < READ_PAGE) return found;
    }
  }

  onAppend(listener: () => void): () => void {
    return this.appends.onAppend(listener);
  }

  async close(): Promise<void> {
    this.appends.close();
    await this.client.dispose();
  }
}
