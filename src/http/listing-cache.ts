import type { ReadStore } from '../projections/stores/read-store.ts';
import { BoundedCache } from '../shared/bounded-cache.ts';
import { onePerTurn } from '../shared/one-per-turn.ts';
import { SingleFlight } from '../shared/single-flight.ts';
import { filterJson, v1FilterJson } from './serializers.ts';

export type ListingKind = 'v2' | 'v1';

interface Listing {
  readonly stamp: string;
  readonly body: Buffer;
}

/** Enough for thousands of accounts' listings; past it the least recently asked for are dropped and built again on demand. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Each account's filter listing (v2 or v1) as the JSON bytes the API answers, kept under the read store's
 * change stamp: while no read model has changed anywhere, a listing costs one cheap question to the store
 * and no query, parsing or serialising. The stamp is taken before the listing is read, so a listing is
 * never kept under a stamp newer than what it shows; a store that cannot give a stamp is read every time.
 * The stamp is asked once per turn of the event loop (one-per-turn.ts): the requests a batch of rate-limit
 * counts wakes together share it, and none that arrived after a change can be answered from before it.
 */
export class ListingCache {
  private readonly listings: BoundedCache<string, Listing>;
  private readonly changeStamp: () => string | null;
  private readonly builds = new SingleFlight<Buffer>();

  constructor(
    private readonly reads: ReadStore,
    private readonly kind: ListingKind,
    maxBytes = MAX_BYTES,
  ) {
    this.listings = new BoundedCache({ entries: Infinity, weight: maxBytes });
    this.changeStamp = onePerTurn(() => reads.changeStamp());
  }

  async listing(accountId: string): Promise<Buffer> {
    const stamp = this.changeStamp();
    if (stamp === null) return this.serialised(accountId);
    const kept = this.listings.get(accountId);
    if (kept && kept.stamp === stamp) return kept.body;
    // Once a change moves the stamp, every request in flight for the account misses at once: they share
    // one build. Each building alone made 64 connections on a listing of 1,000 filters serialise it 64
    // times over, 10 ms each, and hold the event loop for 350 ms (the p99 of that GET).
    return this.builds.run(`${accountId}@${stamp}`, async () => {
      const built = await this.serialised(accountId);
      this.listings.set(accountId, { stamp, body: built }, built.length);
      return built;
    });
  }

  private async serialised(accountId: string): Promise<Buffer> {
    return Buffer.from(JSON.stringify(await this.build(accountId)));
  }

  private async build(accountId: string): Promise<unknown[]> {
    if (this.kind === 'v2') return (await this.reads.listFilters(accountId)).map(filterJson);
    return (await this.reads.listV1Filters(accountId)).map(v1FilterJson);
  }
}
