import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  type AppendExpectedRevision,
  type AppendResult as ClientAppendResult,
  type JSONType,
  type ReadPosition,
} from '@eventstore/db-client';
import { ACCOUNT_CATEGORY, accountEventsStream, accountIdOfEventsStream } from '../accounts/account-events.ts';
import type { AccountStreams } from './account-streams.ts';
import { USAGE_CATEGORY } from './account-usage-events.ts';
import { EsdbAccountIndex } from './esdb-account-index.ts';
import { EsdbAppendWatch } from './esdb-append-watch.ts';
import { chainedEvents } from './esdb-chain-append.ts';
import { chainLink, type ChainLink } from './esdb-chain-link.ts';
import { toRecorded } from './esdb-decode.ts';
import { translateEsdbError } from './esdb-errors.ts';
import { checkpointPosition, packPosition, unpackPosition } from './esdb-position.ts';
import { recentAppend } from './esdb-recent-append.ts';
import { ScannedGap } from './esdb-scanned-gap.ts';
import { readFromLeader } from './esdb-leader-failure.ts';
import { EsdbLeaderConnection } from './esdb-leader-connection.ts';
import { appendExactlyOnce, UNKNOWN_OUTCOME_BUDGET_MS } from './esdb-unknown-outcome.ts';
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
  type ReadAllPage,
  type ReadStreamOptions,
  type RecordedEvent,
} from './event-store.ts';

/** The filter streams: `filter-<id>`. */
const STREAM_PREFIX = `${FILTER_CATEGORY}-`;

/**
 * This project's streams: the filters', the accounts' own (`account-<digits>`, account-events.ts) and their
 * usage ledgers (account-usage-events.ts), as the SQLite log holds them. Everything else in $all (system and
 * foreign streams, the account index) is skipped.
 */
const isOurs = (streamName: string) =>
  streamName.startsWith(STREAM_PREFIX) || streamName.startsWith(`${USAGE_CATEGORY}-`) || accountIdOfEventsStream(streamName) !== null;
const READ_PAGE = 512;
/** Tries of an append with `any` or `stream_exists` that other writers keep getting ahead of. */
const LOOSE_APPEND_ATTEMPTS = 10;

/** The port's expected revision in the client's words; the only place that knows them. */
export function toClientRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (expected === 'any') return ANY;
  return expected;
}

/**
 * EventStoreDB / KurrentDB adapter (`EVENTSTORE_URL`, e.g. `esdb://localhost:2113?tls=false`, or a cluster's
 * `esdb+discover://` seed). Positions are full $all positions (commit and prepare, packed by
 * esdb-position.ts). Every append and every read the service's own writes are decided from is made of the
 * leader (`requiresLeader`), and a node that cannot serve them is left for the leader gossip names
 * (esdb-leader-connection.ts); `onAppend` is esdb-append-watch.ts.
 */
export class EsdbEventStore implements EventStore, AccountStreams {
  private readonly appends: EsdbAppendWatch;
  private readonly gap = new ScannedGap();
  private readonly accounts: EsdbAccountIndex;
  readonly connection: EsdbLeaderConnection;
  /** The current client (replaced when the leader moves; see esdb-leader-connection.ts). */
  readonly client: EventStoreDBClient;

  /** `unknownOutcomeMs`: how long an append whose outcome is unknown is retried (esdb-unknown-outcome.ts), and a read of the leader. */
  constructor(
    connection: EventStoreDBClient | EsdbLeaderConnection,
    private readonly unknownOutcomeMs = UNKNOWN_OUTCOME_BUDGET_MS,
  ) {
    this.connection = connection instanceof EsdbLeaderConnection ? connection : new EsdbLeaderConnection(connection);
    this.client = this.connection.client;
    // Account facts too: another process's (the CLI's) wake the projector at once, not at its idle re-check a second later.
    this.appends = new EsdbAppendWatch(this.client, [STREAM_PREFIX, `${ACCOUNT_CATEGORY}-`]);
    this.accounts = new EsdbAccountIndex(this.connection, (name) => this.readStream(name), unknownOutcomeMs);
  }

  static connect(url: string, unknownOutcomeMs = UNKNOWN_OUTCOME_BUDGET_MS): EsdbEventStore {
    return new EsdbEventStore(EsdbLeaderConnection.fromUrl(url), unknownOutcomeMs);
  }

  /**
   * The server writes each event of an append as its own committed record and answers with the last one's
   * position (EventStore/EventStore v24.10.0 src/EventStore.Core/Services/Storage/StorageWriterService.cs,
   * src/EventStore.Core/Services/RequestManager/Managers/WriteEvents.cs): that is the append's position.
   * Every append goes at an exact revision (or `no_stream`) with fixed event ids, so a retry of one whose
   * outcome was unknown is answered as the first was, from the stream itself, not the server's cache.
   */
  async appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('nothing to append');
    await this.accounts.record(streamName, events);
    if (expected === 'any' || expected === 'stream_exists') {
      const earlier = await this.ofLeader(() => recentAppend(this.client, streamName, events)).catch((error: unknown) => {
        throw translateEsdbError(error, streamName, expected);
      });
      if (earlier) return earlier;
    }
    // `any` and `stream_exists` are made exact (the revision the chain links to), and retried when another
    // writer got in between: the append still goes through whatever the stream holds, as they promise.
    for (let attempt = 1; ; attempt += 1) {
      const link = await this.ofLeader(() => chainLink(this.client, streamName, expected)).catch((error: unknown) => {
        throw translateEsdbError(error, streamName, expected);
      });
      try {
        return await this.appendLinked(streamName, events, link);
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || link.expected === expected || attempt >= LOOSE_APPEND_ATTEMPTS) throw error;
      }
    }
  }

  private async appendLinked(streamName: string, events: readonly NewEvent[], link: ChainLink): Promise<AppendResult> {
    const { expected } = link;
    // Given ids go to the server as they are: an append of ids it already stored right after the expected
    // revision is answered as the first one was (IndexCommitter.CheckCommit, CommitDecision.Idempotent).
    const data = chainedEvents(streamName, events, link).map((e) =>
      jsonEvent({ ...(e.id ? { id: e.id } : {}), type: e.type, data: e.data as JSONType, metadata: e.metadata as JSONType }),
    );
    let result: ClientAppendResult;
    try {
      // A timeout, deadline or lost connection leaves it unknown whether the append was made: the same
      // append is sent again until the server says (esdb-unknown-outcome.ts), so nothing is written twice.
      result = await appendExactlyOnce(this.connection, streamName, data, toClientRevision(expected), this.unknownOutcomeMs);
    } catch (error) {
      // MaxAppendSize (default 1 MiB): a 24.10 server counts the data bytes of the append's events alone
      // (Event.SizeOnDisk, Data/Event.cs 23-24, where `??` binds looser than `+`); nothing was written.
      if (error instanceof MaxAppendSizeExceededError) throw new AppendTooLargeError(error.maxAppendSize);
      throw translateEsdbError(error, streamName, expected);
    }
    const position = result.position ? packPosition(result.position) : -1n;
    this.appends.heard(position);
    return { nextRevision: result.nextExpectedRevision, position };
  }

  /** A read the next write is decided from: of the leader, retried as the leader moves (esdb-leader-failure.ts). */
  private ofLeader<T>(read: () => Promise<T>): Promise<T> {
    return readFromLeader(this.connection, this.unknownOutcomeMs, read);
  }

  async readStream(streamName: string, { after }: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    try {
      const fromRevision = after === undefined || after < 0n ? START : after + 1n;
      return await this.ofLeader(async () => {
        const events: RecordedEvent[] = [];
        for await (const resolved of this.client.readStream(streamName, { direction: FORWARDS, fromRevision, requiresLeader: true })) {
          // Servers before 22.6 give no position when reading a stream; handlers only use revisions.
          if (resolved.event) events.push(toRecorded(resolved.event));
        }
        return events;
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translateEsdbError(error);
    }
  }

  async readLastEvent(streamName: string): Promise<RecordedEvent | null> {
    try {
      return await this.ofLeader(async () => {
        let last: RecordedEvent | null = null;
        // Read to its end (one event at most), never left mid-call: an abandoned call would hold up close().
        const read = this.client.readStream(streamName, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true });
        for await (const resolved of read) if (resolved.event) last = toRecorded(resolved.event);
        return last;
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw translateEsdbError(error);
    }
  }

  /**
   * Reads $all forwards after `after` (the server starts a read at the position it is given, inclusively,
   * which must be a record's), keeping this project's events. Every other record is scanned past, and the
   * stretch without any of ours is remembered (`ScannedGap`) and reported (`scannedTo`), so neither the next
   * read nor the projector's checkpoint goes over it again: on a server shared with other applications or
   * system projections that stretch is most of $all.
   */
  async readAll({ after, limit, signal }: ReadAllOptions): Promise<ReadAllPage> {
    const found: RecordedEvent[] = [];
    const floor = after === null ? -1n : checkpointPosition(after);
    let cursor = this.gap.resumeFrom(floor);
    let scanned: bigint | null = null;
    for (;;) {
      const start: ReadPosition = cursor < 0n ? START : unpackPosition(cursor);
      let raw = 0;
      // Of the leader: the projector that makes reads see their own writes must not read a follower's lagging copy.
      const page = this.client.readAll({ fromPosition: start, maxCount: READ_PAGE, direction: FORWARDS, requiresLeader: true });
      const abort = () => void page.cancel();
      signal?.addEventListener('abort', abort);
      try {
        for await (const resolved of page) {
          raw += 1;
          const event = resolved.event;
          if (!event?.position) continue;
          const position = packPosition(event.position);
          if (position <= cursor) continue;
          cursor = position;
          scanned = position;
          if (position <= floor || !isOurs(event.streamId)) continue;
          found.push(toRecorded(event, position));
          if (found.length >= limit) break;
        }
      } catch (error) {
        throw translateEsdbError(error);
      } finally {
        signal?.removeEventListener('abort', abort);
      }
      if (signal?.aborted) throw new EventStoreUnavailableError('EventStoreDB: read cancelled');
      if (found.length >= limit) {
        await page.cancel();
        return found;
      }
      if (raw < READ_PAGE) break;
    }
    const last = found.at(-1)?.position ?? floor;
    if (scanned !== null && scanned > last) this.gap.scanned(last, scanned);
    return Object.assign(found, { scannedTo: this.gap.endFrom(last) ?? last });
  }

  /** Per-account reads through the account's filter streams (esdb-account-index.ts) and its own stream, not $all. */
  async readAccountEvents(accountId: string): Promise<readonly RecordedEvent[]> {
    const [filters, own] = await Promise.all([this.accounts.readAccountEvents(accountId), this.readStream(accountEventsStream(accountId))]);
    return [...filters, ...own].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  }

  onAppend(listener: () => void): () => void {
    return this.appends.onAppend(listener);
  }

  async close(): Promise<void> {
    this.appends.close();
    await this.connection.close();
  }
}
