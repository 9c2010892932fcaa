import type { Keyword } from '../events/filter-events.ts';
import type { FilterView, V1FilterRecord } from './filter-view.ts';

export interface KeywordLocation {
  readonly filterId: string;
  readonly keyword: Keyword;
}

export interface FilterStatusLocation {
  readonly filterId: string;
  readonly status: { readonly id: string; readonly statusId: string };
}

/**
 * The read-model port: what the projector writes and the queries read. Every query takes the account,
 * so one account can never read another's records. Writes are idempotent: a view whose revision is not
 * newer than the stored one changes nothing, and a checkpoint never moves backwards.
 */
export interface ReadStore {
  /** The stored view, tombstones included: the projector folds the next event into it. */
  loadFilter(filterId: string): Promise<FilterView | null>;
  /** Stores the view (if newer), its v1 records and look-ups, and the checkpoint, as one step. */
  saveFilter(view: FilterView, checkpoint: Checkpoint): Promise<void>;
  advanceCheckpoint(checkpoint: Checkpoint): Promise<void>;
  checkpoint(projection: string): Promise<bigint | null>;

  listFilters(accountId: string): Promise<readonly FilterView[]>;
  getFilter(accountId: string, filterId: string): Promise<FilterView | null>;
  listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]>;
  getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null>;
  findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null>;
  findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null>;
  close(): Promise<void>;
}

export interface Checkpoint {
  readonly projection: string;
  readonly position: bigint;
}
