import { StoreUnavailableError } from '../../shared/store-unavailable.ts';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import type { Keyword } from '../../events/filter-events.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import type { Fence } from '../../shared/fencing.ts';

export interface KeywordLocation {
  readonly filterId: string;
  readonly keyword: Keyword;
}

export interface FilterStatusLocation {
  readonly filterId: string;
  readonly status: { readonly id: string; readonly statusId: string };
}

/** An event the projector gave up on after bounded retries; kept so an operator can see and replay it. */
export interface ParkedEvent {
  readonly position: bigint;
  readonly streamName: string;
  readonly revision: bigint;
  readonly type: string;
  /** Why applying it failed, as the last attempt reported it. */
  readonly error: string;
  readonly parkedAt: string;
}

/**
 * What one projection step stores, as one transaction where the store has them: each changed filter's
 * view as it stands after the batch, the events given up on, and the checkpoint (the batch's last position).
 */
export interface ProjectionBatch {
  readonly projection: string;
  readonly position: bigint;
  readonly views: readonly FilterView[];
  readonly parked?: readonly ParkedEvent[];
  /**
   * A hint: each view as the writer last loaded or stored it (null: not stored), so a store can write
   * only the records that changed. A store uses it only where the stored revision still matches it.
   */
  readonly previous?: ReadonlyMap<string, FilterView | null>;
  /**
   * The writer's lease and fencing token: a store that issues tokens refuses the batch (FencedOffError)
   * once the lease was taken with a larger one. Absent: an unleased writer (a rebuild into its own generation).
   */
  readonly fence?: Fence;
  /**
   * When each view's last change was recorded in the log (`recordedAt` of its last event in the batch),
   * and when a view new to the store was created: for a target that keeps timestamps (Mastodon's tables).
   */
  readonly changedAt?: ReadonlyMap<string, { readonly createdAt: string; readonly updatedAt: string }>;
}

/**
 * What a projection runner writes to: the read models, or another target that folds the same views
 * (Mastodon's filter tables). It loads the views it folds onto, stores each batch with its checkpoint
 * in one transaction, and tells where it stands.
 */
export type ProjectionTarget = Pick<ReadStore, 'loadFilters' | 'applyBatch' | 'checkpoint' | 'onChange'>;

/**
 * The read-model port: what the projector writes and the queries read. Every query takes the account,
 * so one account can never read another's records. Writes are idempotent: a view whose revision is not
 * newer than the stored one changes nothing, and a checkpoint never moves backwards. Records are keyed
 * by their filter as well as their own id, so no event can collide with another filter's records: two
 * filters whose keywords or statuses share an id (ids minted by two processes with one worker number)
 * are both stored, and a lookup by id within one account answers the filter with the lowest id.
 */
export interface ReadStore {
  /** The stored view, tombstones included: the projector folds the next event into it. */
  loadFilter(filterId: string): Promise<FilterView | null>;
  /** The stored views of these filters that exist, tombstones included. */
  loadFilters(filterIds: readonly string[]): Promise<ReadonlyMap<string, FilterView>>;
  /** Stores a batch: views (where newer), parked events and the checkpoint, all or nothing where the store can. */
  applyBatch(batch: ProjectionBatch): Promise<void>;
  /** Stores the view (if newer), its v1 records and look-ups, and the checkpoint, as one step. */
  saveFilter(view: FilterView, checkpoint: Checkpoint): Promise<void>;
  advanceCheckpoint(checkpoint: Checkpoint): Promise<void>;
  checkpoint(projection: string): Promise<bigint | null>;
  /** Events the projection parked, oldest first. */
  parkedEvents(projection: string): Promise<readonly ParkedEvent[]>;

  listFilters(accountId: string): Promise<readonly FilterView[]>;
  /**
   * Accounts that have a filter stored (a tombstone counts), in ascending string order, after `after`
   * (from the first when null): at least one while any remain, at most `limit`; none at the end.
   */
  accountsAfter(after: string | null, limit: number): Promise<readonly string[]>;
  /**
   * How many live filters the account has and their keyword characters (code points, as
   * `keywordCharacters` counts them), leaving out `exceptFilterId`: what the per-account limits judge a
   * write by. Kept per filter as it is stored and summed by the store, so no view is loaded.
   */
  accountUsage(accountId: string, exceptFilterId: string): Promise<AccountUsage>;
  /**
   * Changes whenever any of the account's filters changes (also across processes): the count of its
   * views, tombstones included, and the sum of their revisions, each of which only grows. Matchers
   * compiled from the filters are cached under it.
   */
  filtersVersion(accountId: string): Promise<string>;
  getFilter(accountId: string, filterId: string): Promise<FilterView | null>;
  listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]>;
  getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null>;
  findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null>;
  findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null>;
  /**
   * A stamp that differs whenever any read model may have changed since it was taken, whether this
   * connection or another process wrote: answers built from reads made after taking it may be kept under
   * it. Null when the store cannot tell cheaply, so nothing is kept. Synchronous: asked on every read.
   */
  changeStamp(): string | null;
  /**
   * Where the store can tell: calls `listener` whenever another process may have committed to the read
   * models (a hint to read again, as the event store's `onAppend`); returns a function that stops it.
   */
  onChange?(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface Checkpoint {
  readonly projection: string;
  readonly position: bigint;
}

export const READ_MODELS = 'the read models';

/** The read models' StoreUnavailableError: adapters translate their driver's errors into it. */
export class ReadStoreUnavailableError extends StoreUnavailableError {
  override readonly name = 'ReadStoreUnavailableError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, { ...options, store: READ_MODELS });
  }
}

/** The read models' translators make it so (sqlite-errors.ts, mongo-errors.ts). */
export const readModelsUnavailable = (message: string, cause: unknown): ReadStoreUnavailableError => new ReadStoreUnavailableError(message, { cause });
