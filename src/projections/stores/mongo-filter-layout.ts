import type { Collection } from 'mongodb';
import { keywordCharacters, type AccountUsage } from '../../commands/filter/filter-limits.ts';
import type { Keyword } from '../../events/filter-events.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';

/**
 * How a filter lies in MongoDB, whose documents may not exceed 16 MiB (BSONObjMaxUserSize): the filter
 * document holds its settings only (`layout: 2`), each keyword is its v1 record's document and each
 * filtered status its own document, each with its place in the filter's list. So no document grows with
 * what a filter holds, whatever the limits allow. Filter documents written before (no `layout`) still
 * carry their keywords and statuses inside and are read as they are until a rebuild rewrites them.
 */
export const SPLIT_LAYOUT = 2;

export interface FilterDoc {
  _id: string;
  accountId: string;
  revision: number;
  deleted: boolean;
  idLength: number;
  layout?: number;
  /** Code points of the live filter's keywords (0 once deleted); absent in documents written before. */
  keywordCharacters?: number;
  view: FilterView;
}
/** `_id` is `<filterId>:<keywordId>` (older data: the keyword id alone); lookups go by `record.id`. */
export interface V1Doc {
  _id: string;
  accountId: string;
  filterId: string;
  filterIdLength: number;
  filterRevision: number;
  idLength: number;
  /** The keyword's index in its filter's list (absent in data written before the split layout). */
  order?: number;
  record: V1FilterRecord;
}
/** `_id` is `<filterId>:<filterStatusId>` (older data: the id alone, without `statusId`). */
export interface StatusDoc {
  _id: string;
  accountId: string;
  filterId: string;
  filterIdLength: number;
  filterRevision: number;
  /** The filter-status id (the name is historical). */
  statusId: string;
  order?: number;
  status?: { id: string; statusId: string };
}

/** The filter document's fields for a view: its settings, without the lists kept in their own documents. */
export function filterDocFields(view: FilterView): Omit<FilterDoc, '_id'> {
  return {
    accountId: view.accountId,
    revision: view.revision,
    deleted: view.deleted,
    idLength: view.id.length,
    layout: SPLIT_LAYOUT,
    keywordCharacters: view.deleted ? 0 : keywordCharacters(view.keywords),
    view: { ...view, keywords: [], statuses: [] },
  };
}

function byFilter<T extends { filterId: string }>(docs: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const doc of docs) {
    const group = grouped.get(doc.filterId);
    if (group) group.push(doc);
    else grouped.set(doc.filterId, [doc]);
  }
  return grouped;
}

const byOrder = <T extends { order?: number }>(a: T, b: T): number => (a.order ?? 0) - (b.order ?? 0);

/**
 * The views of these filter documents with their keywords and statuses, read from their own documents
 * in two queries whatever the number of filters. A reader racing a write may see the new lists with the
 * old settings for a moment; read-your-writes waits for the checkpoint, which is written last.
 */
export async function viewsOf(docs: readonly FilterDoc[], v1: Collection<V1Doc>, statuses: Collection<StatusDoc>): Promise<FilterView[]> {
  const split = docs.filter((doc) => doc.layout === SPLIT_LAYOUT && !doc.deleted).map((doc) => doc._id);
  if (split.length === 0) return docs.map((doc) => doc.view);
  const [keywordDocs, statusDocs] = await Promise.all([v1.find({ filterId: { $in: split } }).toArray(), statuses.find({ filterId: { $in: split } }).toArray()]);
  const keywords = byFilter(keywordDocs);
  const filtered = byFilter(statusDocs);
  return docs.map((doc) => {
    if (doc.layout !== SPLIT_LAYOUT || doc.deleted) return doc.view;
    // A record older than its filter is a former writer's leftover: a view never goes back in revision.
    const current = <T extends { filterRevision: number }>(record: T) => record.filterRevision >= doc.revision;
    const list: Keyword[] = (keywords.get(doc._id) ?? [])
      .filter(current)
      .sort(byOrder)
      .map(({ record }) => ({ id: record.id, keyword: record.phrase, wholeWord: record.wholeWord }));
    const held = (filtered.get(doc._id) ?? [])
      .filter(current)
      .sort(byOrder)
      .flatMap((s) => (s.status ? [s.status] : []));
    return { ...doc.view, keywords: list, statuses: held };
  });
}

/**
 * The account's live filters other than `exceptFilterId` and their keyword characters, summed by the
 * server over the account index. Documents written before the count was kept are counted from their
 * views (a rebuild writes it into every one).
 */
export async function usageOf(
  filters: Collection<FilterDoc>,
  collections: { v1: Collection<V1Doc>; statuses: Collection<StatusDoc> },
  accountId: string,
  exceptFilterId: string,
): Promise<AccountUsage> {
  const match = { accountId, deleted: false, _id: { $ne: exceptFilterId } };
  const [sums, uncounted] = await Promise.all([
    filters
      .aggregate<{ filters: number; characters: number }>([
        { $match: match },
        { $group: { _id: null, filters: { $sum: 1 }, characters: { $sum: '$keywordCharacters' } } },
      ])
      .toArray(),
    filters.find({ ...match, keywordCharacters: { $exists: false } }).toArray(),
  ]);
  const views = uncounted.length > 0 ? await viewsOf(uncounted, collections.v1, collections.statuses) : [];
  return {
    filters: sums[0]?.filters ?? 0,
    keywordCharacters: (sums[0]?.characters ?? 0) + views.reduce((sum, view) => sum + keywordCharacters(view.keywords), 0),
  };
}
