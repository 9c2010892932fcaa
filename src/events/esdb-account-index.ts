import { createHash } from 'node:crypto';
import {
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  type Position,
} from '@eventstore/db-client';
import { toRecorded } from './esdb-decode.ts';
import { translateEsdbError } from './esdb-errors.ts';
import type { EsdbLeaderConnection } from './esdb-leader-connection.ts';
import { appendExactlyOnce, UNKNOWN_OUTCOME_BUDGET_MS } from './esdb-unknown-outcome.ts';
import { EventStoreUnavailableError, type NewEvent, type RecordedEvent } from './event-store.ts';
import { FILTER_CATEGORY } from './filter-events.ts';

/**
 * An account's filter streams on EventStoreDB, where there is no secondary index to ask: one small stream
 * per account, `filteraccount-<accountId>`, with one `FilterStreamOwned` event per filter stream it owns.
 * The name is outside the `filter-` category, so the projector skips it. An entry is written before the
 * filter's FilterCreated append and carries an id derived from the stream name. A retry or a second writer
 * adds nothing because each entry is appended at the exact revision the writer read, after finding its id
 * absent: the server's own deduplication of `any` appends is a bounded cache of recent ids, lost on
 * restart and leader change (EventStore/EventStore v24.10.0 src/EventStore.Core/Services/Storage/ReaderIndex/
 * IndexWriter.cs 109, 203-231), while an exact revision is checked against the stream itself (234-277),
 * and a retry of an append already made is answered as the first one was. An entry whose append then failed
 * points at a stream that does not exist, or that another account owns, and is skipped when read.
 */
export const ACCOUNT_STREAM_PREFIX = `${FILTER_CATEGORY}account-`;
export const OWNED_TYPE = 'FilterStreamOwned';
/** Holds one event once the entries for a log written before the index existed have been filled in. */
const BACKFILL_STREAM = `${FILTER_CATEGORY}account_backfill`;
const PREFIX = `${FILTER_CATEGORY}-`;
const PAGE = 512;
/** Tries of an entry's append that other writers to the same account keep getting ahead of. */
const ENTRY_ATTEMPTS = 10;
/** Streams read at once for one account. */
const PARALLEL_READS = 16;

/** A UUID (version 5 layout) from the stream name: the same entry always gets the same id. */
export function ownershipEventId(streamName: string): string {
  const hash = createHash('sha1').update(`filter-stream-owner:${streamName}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The account a FilterCreated event names, if this is one of this project's streams' creations. */
export function ownerNamed(streamName: string, type: string, data: unknown): string | null {
  if (type !== 'FilterCreated' || !streamName.startsWith(PREFIX)) return null;
  const accountId = (data as { accountId?: unknown } | null)?.accountId;
  return typeof accountId === 'string' ? accountId : null;
}

export const accountStream = (accountId: string) => `${ACCOUNT_STREAM_PREFIX}${accountId}`;

export class EsdbAccountIndex {
  private backfilled: Promise<void> | null = null;

  private readonly client: EventStoreDBClient;

  constructor(
    private readonly connection: EsdbLeaderConnection,
    private readonly readStream: (name: string) => Promise<readonly RecordedEvent[]>,
    private readonly unknownOutcomeMs = UNKNOWN_OUTCOME_BUDGET_MS,
  ) {
    this.client = connection.client;
  }

  /** Writes the entries an append that creates filters needs, before the append itself. */
  async record(streamName: string, events: readonly NewEvent[]): Promise<void> {
    for (const event of events) {
      const owner = ownerNamed(streamName, event.type, event.data);
      if (owner !== null) await this.add(owner, streamName);
    }
  }

  /** Every event of the account's filter streams, in log order; the cost grows with those events alone. */
  async readAccountEvents(accountId: string): Promise<readonly RecordedEvent[]> {
    this.backfilled ??= this.backfill().catch((error: unknown) => {
      this.backfilled = null;
      throw error;
    });
    await this.backfilled;
    const streams = [...new Set((await this.readStream(accountStream(accountId))).map((e) => (e.data as { stream?: unknown } | null)?.stream))].filter(
      (s): s is string => typeof s === 'string',
    );
    const found: RecordedEvent[] = [];
    for (let i = 0; i < streams.length; i += PARALLEL_READS) {
      const read = await Promise.all(streams.slice(i, i + PARALLEL_READS).map((s) => this.readStream(s)));
      for (const events of read) {
        const first = events[0];
        if (first && ownerNamed(first.streamName, first.type, first.data) === accountId) found.push(...events);
      }
    }
    return found.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  }

  /** The entry, unless the account's stream holds it already; appended at the revision just read. */
  private async add(accountId: string, streamName: string): Promise<void> {
    const stream = accountStream(accountId);
    const id = ownershipEventId(streamName);
    for (let attempt = 1; ; attempt += 1) {
      const entries = await this.readStream(stream);
      if (entries.some((entry) => entry.eventId === id)) return;
      const expectedRevision = entries.at(-1)?.revision ?? NO_STREAM;
      try {
        const entry = jsonEvent({ id, type: OWNED_TYPE, data: { stream: streamName } });
        await appendExactlyOnce(this.connection, stream, [entry], expectedRevision, this.unknownOutcomeMs);
        return;
      } catch (error) {
        // Another writer appended to the account's stream in between (maybe this very entry): read again.
        if (error instanceof WrongExpectedVersionError && attempt < ENTRY_ATTEMPTS) continue;
        throw error instanceof EventStoreUnavailableError ? error : translateEsdbError(error);
      }
    }
  }

  /**
   * A log written before the index existed: its filter streams' owners are found once, by one pass over
   * $all, and the pass is recorded so it is never made again (each entry is checked for before it is
   * appended at an exact revision, so two processes doing it at once write each entry once).
   */
  private async backfill(): Promise<void> {
    try {
      if ((await this.readStream(BACKFILL_STREAM)).length > 0) return;
      let from: Position | null = null;
      for (;;) {
        let raw = 0;
        const page: AsyncIterable<AllStreamResolvedEvent> = this.client.readAll({
          fromPosition: from ?? START,
          maxCount: PAGE,
          direction: FORWARDS,
          requiresLeader: true,
        });
        for await (const resolved of page) {
          raw += 1;
          const event = resolved.event;
          if (!event) continue;
          if (from && event.position.commit === from.commit && event.position.prepare === from.prepare) continue;
          from = event.position;
          const recorded = toRecorded(event, 0n);
          const owner = ownerNamed(recorded.streamName, recorded.type, recorded.data);
          if (owner !== null) await this.add(owner, recorded.streamName);
        }
        if (raw < PAGE) break;
      }
      // One marker, ever: another process that finished first already wrote it.
      await this.client.appendToStream(BACKFILL_STREAM, jsonEvent({ type: 'AccountIndexBackfilled', data: { at: new Date().toISOString() } }), {
        expectedRevision: NO_STREAM,
        requiresLeader: true,
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof WrongExpectedVersionError) return;
      throw translateEsdbError(error);
    }
  }
}
