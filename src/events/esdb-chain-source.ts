import { BACKWARDS, END, EventStoreDBClient, FORWARDS, jsonEvent, START, StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client';
import type { ChainedEvent, ChainSource } from './chain-verify.ts';
import { chainHash, GENESIS, type ChainHead } from './event-chain.ts';
import { chainedFromEsdb, effectiveHash, storedEvent } from './esdb-chain-link.ts';
import { translateEsdbError } from './esdb-errors.ts';
import { packPosition, unpackPosition } from './esdb-position.ts';
import { FILTER_CATEGORY } from './filter-events.ts';

/** The seals of the log chain: a stream of their own, outside the `filter` category the projector reads. */
export const SEAL_STREAM = `${FILTER_CATEGORY}chain-seals`;
export const SEAL_TYPE = 'LogChainSealed';
const PREFIX = `${FILTER_CATEGORY}-`;
const PAGE = 4096;

interface Seal {
  readonly revision: bigint;
  readonly head: ChainHead;
  readonly events: number;
}

const sealOf = (data: unknown, revision: bigint): Seal | null => {
  const { through, hash, events } = (data ?? {}) as { through?: unknown; hash?: unknown; events?: unknown };
  if (typeof through !== 'string' || !/^\d+$/.test(through) || typeof hash !== 'string' || typeof events !== 'number') return null;
  return { revision, head: { position: BigInt(through), hash }, events };
};

/**
 * The chains on EventStoreDB (docs/auditing.md). Every stream's chain is in its events' metadata
 * (esdb-chain-append.ts); $all has no single writer, so the log chain over the `filter-` events in $all
 * order is sealed instead: `sealHead()` extends the last seal over the events appended since and appends the
 * new head to SEAL_STREAM, expecting the last seal's revision, so of two processes sealing at once one
 * wins and the other's seal, being the same or shorter, is not needed. The first seal covers the events
 * stored before the chains.
 */
export class EsdbChainSource implements ChainSource {
  readonly logChain = false;

  constructor(private readonly client: EventStoreDBClient) {}

  static connect(url: string): EsdbChainSource {
    return new EsdbChainSource(EventStoreDBClient.connectionString(url));
  }

  async *pages(after: bigint | null = null): AsyncIterable<readonly ChainedEvent[]> {
    let from = after;
    for (;;) {
      const page: ChainedEvent[] = [];
      let raw = 0;
      try {
        const read = this.client.readAll({ fromPosition: from === null ? START : unpackPosition(from), maxCount: PAGE, direction: FORWARDS });
        for await (const resolved of read) {
          raw += 1;
          const event = resolved.event;
          if (!event?.position) continue;
          const position = packPosition(event.position);
          // A read starts at the position it is given, inclusively.
          if (from !== null && position <= from) continue;
          from = position;
          if (event.streamId.startsWith(PREFIX)) page.push(chainedFromEsdb(event, position));
        }
      } catch (error) {
        throw translateEsdbError(error);
      }
      if (page.length > 0) yield page;
      if (raw < PAGE) return;
    }
  }

  async stored(stream: string, revision: bigint): Promise<{ position: bigint; eventHash: string } | null> {
    const event = await storedEvent(this.client, stream, revision).catch((error: unknown) => {
      throw translateEsdbError(error);
    });
    return event?.revision === revision ? { position: event.position, eventHash: effectiveHash(event) } : null;
  }

  async seals(): Promise<readonly ChainHead[]> {
    const seals: ChainHead[] = [];
    try {
      for await (const resolved of this.client.readStream(SEAL_STREAM, { direction: FORWARDS, fromRevision: START })) {
        const seal = resolved.event ? sealOf(resolved.event.data, resolved.event.revision) : null;
        if (seal) seals.push(seal.head);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translateEsdbError(error);
    }
    return seals;
  }

  /**
   * Seals the log up to its end and answers the newest seal's head (null for a log without events). Reads
   * every event after the last seal (all of them on the first call) and appends a seal when there were any:
   * the head the service logs (chain-heads.ts) costs that, not one read.
   */
  async sealHead(): Promise<ChainHead | null> {
    const last = await this.lastSeal();
    let chain = last?.head.hash ?? GENESIS;
    let through = last?.head.position ?? null;
    let events = last?.events ?? 0;
    for await (const page of this.pages(through)) {
      for (const event of page) {
        chain = chainHash(chain, event.position, effectiveHash(event));
        through = event.position;
        events += 1;
      }
    }
    if (through === null || through === last?.head.position) return last?.head ?? null;
    const seal = jsonEvent({ type: SEAL_TYPE, data: { through: through.toString(), hash: chain, events, sealedAt: new Date().toISOString() } });
    try {
      await this.client.appendToStream(SEAL_STREAM, seal, { expectedRevision: last ? last.revision : 'no_stream' });
    } catch (error) {
      // Another process sealed meanwhile: its seal stands (it covers at least as much of the log).
      if (error instanceof WrongExpectedVersionError) return (await this.lastSeal())?.head ?? null;
      throw translateEsdbError(error);
    }
    return { position: through, hash: chain };
  }

  private async lastSeal(): Promise<Seal | null> {
    try {
      let seal: Seal | null = null;
      for await (const resolved of this.client.readStream(SEAL_STREAM, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) seal = sealOf(resolved.event.data, resolved.event.revision);
      }
      return seal;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw translateEsdbError(error);
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
