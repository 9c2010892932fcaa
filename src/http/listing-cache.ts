import type { ReadStore } from '../projections/stores/read-store.ts';
import { filterJson, v1FilterJson } from './serializers.ts';

export type ListingKind = 'v2' | 'v1';

interface Listing {
  readonly stamp: string;
  readonly body: Buffer;
}

/** Enough for thousands of accounts' listings; past it everything is dropped and built again on demand. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Each account's filter listing (v2 or v1) as the JSON bytes the API answers, kept under the read store's
 * change stamp: while no read model has changed anywhere, a listing costs one cheap question to the store
 * and no query, parsing or serialising. The stamp is taken before the listing is read, so a listing is
 * never kept under a stamp newer than what it shows; a store that cannot give a stamp is read every time.
 */
export class ListingCache {
  private readonly listings = new Map<string, Listing>();
  private bytes = 0;

  constructor(
    private readonly reads: ReadStore,
    private readonly kind: ListingKind,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async listing(accountId: string): Promise<Buffer> {
    const stamp = this.reads.changeStamp();
    const kept = stamp === null ? undefined : this.listings.get(accountId);
    if (kept && kept.stamp === stamp) return kept.body;
    const body = Buffer.from(JSON.stringify(await this.build(accountId)));
    if (stamp !== null) this.keep(accountId, { stamp, body });
    return body;
  }

  private async build(accountId: string): Promise<unknown[]> {
    if (this.kind === 'v2') return (await this.reads.listFilters(accountId)).map(filterJson);
    return (await this.reads.listV1Filters(accountId)).map(v1FilterJson);
  }

  private keep(accountId: string, listing: Listing): void {
    const replaced = this.listings.get(accountId);
    if (replaced) this.bytes -= replaced.body.length;
    if (this.bytes + listing.body.length > this.maxBytes) {
      this.listings.clear();
      this.bytes = 0;
    }
    this.listings.set(accountId, listing);
    this.bytes += listing.body.length;
  }
}
