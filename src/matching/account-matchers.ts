import { BoundedCache } from '../shared/bounded-cache.ts';
import { SingleFlight } from '../shared/single-flight.ts';
import { CompiledFilters, type MatchableFilter, type MatchOptions } from './compiled-filters.ts';
import type { FilterResult } from './filter-result.ts';
import type { MatchRequest, MatchResponse } from './match-request.ts';
import { runInSlices, type Steps } from './paced-steps.ts';

/** Where an account's filters come from: the v2 read model (ReadStore) has these two queries. */
export interface FilterSource {
  /** Changes whenever any of the account's filters changes: cheap, and read before the filters. */
  filtersVersion(accountId: string): Promise<string>;
  listFilters(accountId: string): Promise<readonly MatchableFilter[]>;
}

export interface AccountMatchersOptions {
  /** What the cached matchers may hold in all, in CompiledFilters.size units (4 bytes each). */
  readonly maxSize?: number;
  /**
   * The most one account's matcher may hold and still be cached: a larger one is used for its request
   * and dropped, so that it never pushes out more than this share of the other accounts' matchers.
   * Default: a quarter of maxSize, more than the largest matcher the filter limits allow (about 7 MiB).
   */
  readonly maxEntrySize?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly version: string;
  readonly matcher: CompiledFilters;
}

const DEFAULT_MAX_SIZE = 16 * 1024 * 1024;
/** A request's statuses are matched in slices of about this long, with a turn of the event loop between (a
 * status's scan can be cut too, so no content holds the loop for longer). */
const MATCH_SLICE_MS = 8;

/**
 * Each account's filters compiled once and kept while they do not change. Every request first reads
 * the account's filters version from the read model (one indexed query) and recompiles when it differs
 * from the cached one. So a match asked for after a write's response uses that write, whichever process
 * handled the write: writes answer only once the read model has them. Least recently used matchers are
 * dropped first once the cache is full. Matchers are compiled in slices of a few milliseconds and a
 * request's statuses matched in slices too, so one large filter set or one large request does not hold
 * up other requests.
 */
export class AccountMatchers {
  /** Weighed in CompiledFilters.size units; least recently used first out. */
  private readonly entries: BoundedCache<string, Entry>;
  private readonly building = new SingleFlight<Entry>();
  private readonly maxEntrySize: number;
  private readonly now: () => number;

  constructor(
    private readonly source: FilterSource,
    options: AccountMatchersOptions = {},
  ) {
    const maxSize = options.maxSize ?? DEFAULT_MAX_SIZE;
    this.entries = new BoundedCache({ entries: Infinity, weight: maxSize });
    this.maxEntrySize = options.maxEntrySize ?? Math.floor(maxSize / 4);
    this.now = options.now ?? Date.now;
  }

  async match(accountId: string, request: MatchRequest): Promise<MatchResponse> {
    const matcher = await this.matcherFor(accountId);
    const options = { now: this.now(), context: request.context };
    const results: Record<string, readonly FilterResult[]> = {};
    await runInSlices(matchEach(matcher, request, options, results), MATCH_SLICE_MS);
    return { results };
  }

  async matcherFor(accountId: string): Promise<CompiledFilters> {
    const version = await this.source.filtersVersion(accountId);
    const cached = this.entries.get(accountId);
    if (cached && cached.version === version) return cached.matcher;
    return (await this.building.run(`${accountId}@${version}`, () => this.compile(accountId, version))).matcher;
  }

  /** How many accounts have a cached matcher. */
  get cachedAccounts(): number {
    return this.entries.size;
  }

  private async compile(accountId: string, version: string): Promise<Entry> {
    // Read after the version: the filters are at least as new as the version they are cached under.
    const filters = await this.source.listFilters(accountId);
    const entry = { version, matcher: await CompiledFilters.compileInSlices(filters, this.now()) };
    if (entry.matcher.size <= this.maxEntrySize) this.entries.set(accountId, entry, entry.matcher.size);
    else this.entries.delete(accountId);
    return entry;
  }
}

function* matchEach(matcher: CompiledFilters, request: MatchRequest, options: MatchOptions, results: Record<string, readonly FilterResult[]>): Steps<void> {
  for (const status of request.statuses) {
    results[status.id] = yield* matcher.matchSteps(status, options);
    yield;
  }
}
