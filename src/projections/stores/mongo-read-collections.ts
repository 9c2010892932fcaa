import { MongoBulkWriteError, MongoServerError, type AnyBulkWriteOperation, type Collection, type Db, type Document } from 'mongodb';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import { isId } from '../../shared/ids.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import { v1RecordsOf } from '../fold/filter-view.ts';
import { generationName, generationNames, READ_MODEL_NAMES } from './generation-names.ts';
import { belowPosition, fromStoredPosition, toStoredPosition, type StoredPosition } from './mongo-positions.ts';
import { claim, notFencedBy, refuseIfFenced } from './mongo-fences.ts';
import { filterDocFields, usageOf, viewsOf, type FilterDoc, type StatusDoc, type V1Doc } from './mongo-filter-layout.ts';
import type { FilterStatusLocation, KeywordLocation, ParkedEvent, ProjectionBatch } from './read-store.ts';

export async function dropCollections(db: Db, generation: number): Promise<void> {
  for (const base of READ_MODEL_NAMES) await db.dropCollection(generationName(base, generation)).catch(() => false);
}

interface CheckpointDoc {
  _id: string;
  /** Absent while only claimed by a lease holder's fencing token (mongo-fences.ts), before its first batch. */
  position?: StoredPosition;
  fence?: number;
}
interface ParkedDoc {
  _id: string;
  projection: string;
  position: StoredPosition;
  stream: string;
  revision: string;
  type: string;
  error: string;
  parkedAt: string;
}

const DUPLICATE_KEY = 11000;

/**
 * Unordered bulk writes whose only failures may be guarded upserts meeting newer documents; answers the
 * indexes of the operations that met one.
 */
async function bulkUnlessNewer<T extends Document>(collection: Collection<T>, operations: AnyBulkWriteOperation<T>[]): Promise<number[]> {
  if (operations.length === 0) return [];
  try {
    await collection.bulkWrite(operations, { ordered: false });
    return [];
  } catch (error) {
    const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : null;
    if (!errors || errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw error;
    return errors.map((e) => e.index);
  }
}

/** Ids are digit strings of varying length: shorter first, then by string, is numeric order. */
const BY_ID = { idLength: 1, _id: 1 } as const;
const BY_KEYWORD = { idLength: 1, 'record.id': 1, filterIdLength: 1, filterId: 1 } as const;
const BY_FILTER = { filterIdLength: 1, filterId: 1 } as const;

/**
 * One generation's collections. Without multi-document transactions every write is guarded by the
 * filter's revision and the filter document is written after its records, the checkpoint last, so a batch
 * repeated after a crash completes what was missing and changes nothing else. Records are keyed by their
 * filter too, so filters sharing a keyword or status id never overwrite each other's. Ids are checked
 * before they reach a query.
 */
export class MongoReadCollections {
  private readonly filters: Collection<FilterDoc>;
  private readonly v1: Collection<V1Doc>;
  private readonly statuses: Collection<StatusDoc>;
  private readonly checkpoints: Collection<CheckpointDoc>;
  private readonly parked: Collection<ParkedDoc>;

  constructor(db: Db, generation: number) {
    const names = generationNames(generation);
    this.filters = db.collection(names.filters);
    this.v1 = db.collection(names.v1);
    this.statuses = db.collection(names.statuses);
    this.checkpoints = db.collection(names.checkpoints);
    this.parked = db.collection(names.parked);
  }

  async createIndexes(): Promise<void> {
    await this.filters.createIndex({ accountId: 1, deleted: 1, ...BY_ID });
    await this.v1.createIndex({ accountId: 1, ...BY_KEYWORD });
    await this.v1.createIndex({ filterId: 1, filterRevision: 1 });
    await this.statuses.createIndex({ accountId: 1, statusId: 1, ...BY_FILTER });
    await this.statuses.createIndex({ filterId: 1, filterRevision: 1 });
    await this.checkpoints.createIndex({ _id: 1, position: 1 });
    await this.parked.createIndex({ projection: 1, position: 1 });
  }

  async store(batch: ProjectionBatch): Promise<void> {
    const { fence } = batch;
    // Claimed first, so a former lease holder is refused before it writes, once its successor wrote.
    if (fence) await claim(this.checkpoints, batch.projection, fence);
    const ids = batch.views.map((view) => view.id);
    const stored = new Map<string, number>();
    if (ids.length > 0) {
      for (const doc of await this.filters.find({ _id: { $in: ids } }, { projection: { revision: 1 } }).toArray()) stored.set(doc._id, doc.revision);
    }
    const newer = batch.views.filter((view) => (stored.get(view.id) ?? -1) < view.revision);
    await Promise.all([bulkUnlessNewer(this.v1, newer.flatMap(v1Writes)), bulkUnlessNewer(this.statuses, newer.flatMap(statusWrites))]);
    const overtaken = await bulkUnlessNewer(
      this.filters,
      newer.map((view) => ({
        updateOne: {
          filter: { _id: view.id, revision: { $lt: view.revision } },
          update: { $set: filterDocFields(view) },
          upsert: true,
        },
      })),
    );
    await this.dropOvertaken(overtaken.map((index) => newer[index]!));
    await bulkUnlessNewer(
      this.parked,
      (batch.parked ?? []).map((parked) => parkedWrite(batch.projection, parked)),
    );
    try {
      await this.checkpoints.updateOne(
        { _id: batch.projection, position: belowPosition(batch.position), ...(fence ? notFencedBy(fence) : {}) },
        { $set: { position: toStoredPosition(batch.position), ...(fence ? { fence: fence.token } : {}) } },
        { upsert: true },
      );
    } catch (error) {
      // The guard matched nothing and the upsert met the checkpoint: it is at or past this position,
      // or a later lease holder wrote it (then this writer is refused).
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      if (fence) await refuseIfFenced(this.checkpoints, batch.projection, fence);
    }
  }

  /**
   * Views whose filter document a newer revision had already replaced: their records, upserted after the
   * newer writer deleted its predecessors, would come back (a keyword removed, resurrected). Every record
   * at or below such a view's revision is older than its filter's, so it goes.
   */
  private async dropOvertaken(views: readonly FilterView[]): Promise<void> {
    if (views.length === 0) return;
    const stale = { $or: views.map((view) => ({ filterId: view.id, filterRevision: { $lte: view.revision } })) };
    await Promise.all([this.v1.deleteMany(stale), this.statuses.deleteMany(stale)]);
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    const doc = await this.checkpoints.findOne({ _id: String(projection) }, { promoteLongs: false });
    return doc?.position === undefined ? null : fromStoredPosition(doc.position);
  }

  async parkedEvents(projection: string): Promise<ParkedEvent[]> {
    const docs = await this.parked
      .find({ projection: String(projection) }, { promoteLongs: false })
      .sort({ position: 1, _id: 1 })
      .toArray();
    return docs.map((doc) => ({
      position: fromStoredPosition(doc.position),
      streamName: doc.stream,
      revision: BigInt(doc.revision),
      type: doc.type,
      error: doc.error,
      parkedAt: doc.parkedAt,
    }));
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    if (!isId(filterId)) return null;
    return this.viewOf(await this.filters.findOne({ _id: filterId }));
  }

  async loadFilters(filterIds: readonly string[]): Promise<Map<string, FilterView>> {
    const ids = filterIds.filter(isId);
    const found = new Map<string, FilterView>();
    if (ids.length === 0) return found;
    for (const view of await viewsOf(await this.filters.find({ _id: { $in: ids } }).toArray(), this.v1, this.statuses)) found.set(view.id, view);
    return found;
  }

  async listFilters(accountId: string): Promise<FilterView[]> {
    if (!isId(accountId)) return [];
    return viewsOf(await this.filters.find({ accountId, deleted: false }).sort(BY_ID).toArray(), this.v1, this.statuses);
  }

  /** One page of filter documents by account (the by-account index), each account once. */
  async accountsAfter(after: string | null, limit: number): Promise<string[]> {
    const docs = await this.filters
      .find({ accountId: { $gt: after ?? '' } }, { projection: { _id: 0, accountId: 1 } })
      .sort({ accountId: 1 })
      .limit(Math.max(1, limit))
      .toArray();
    return [...new Set(docs.map((doc) => doc.accountId))];
  }

  async filtersVersion(accountId: string): Promise<string> {
    if (!isId(accountId)) return '0:0';
    // Revisions only, through the account index: summed here, which the stand-in handles too.
    const docs = await this.filters.find({ accountId }, { projection: { _id: 0, revision: 1 } }).toArray();
    return `${docs.length}:${docs.reduce((sum, doc) => sum + doc.revision, 0)}`;
  }

  async accountUsage(accountId: string, exceptFilterId: string): Promise<AccountUsage> {
    if (!isId(accountId)) return { filters: 0, keywordCharacters: 0 };
    return usageOf(this.filters, { v1: this.v1, statuses: this.statuses }, accountId, String(exceptFilterId));
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    if (!isId(accountId) || !isId(filterId)) return null;
    return this.viewOf(await this.filters.findOne({ _id: filterId, accountId, deleted: false }));
  }

  private async viewOf(doc: FilterDoc | null): Promise<FilterView | null> {
    return doc ? ((await viewsOf([doc], this.v1, this.statuses))[0] ?? null) : null;
  }

  async listV1Filters(accountId: string): Promise<V1FilterRecord[]> {
    if (!isId(accountId)) return [];
    return (await this.v1.find({ accountId }).sort(BY_KEYWORD).toArray()).map((doc) => doc.record);
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    if (!isId(accountId) || !isId(keywordId)) return null;
    return (await this.v1.findOne({ accountId, 'record.id': keywordId }, { sort: BY_FILTER }))?.record ?? null;
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    const record = await this.getV1Filter(accountId, keywordId);
    if (!record) return null;
    return { filterId: record.filterId, keyword: { id: record.id, keyword: record.phrase, wholeWord: record.wholeWord } };
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    if (!isId(accountId) || !isId(filterStatusId)) return null;
    const doc = await this.statuses.findOne({ accountId, $or: [{ statusId: filterStatusId }, { _id: filterStatusId }] }, { sort: BY_FILTER });
    if (!doc) return null;
    const status = (await this.getFilter(accountId, doc.filterId))?.statuses.find((s) => s.id === filterStatusId);
    return status ? { filterId: doc.filterId, status } : null;
  }
}

function v1Writes(view: FilterView): AnyBulkWriteOperation<V1Doc>[] {
  const revision = view.revision;
  const upserts = v1RecordsOf(view).map((record, order): AnyBulkWriteOperation<V1Doc> => {
    const doc = {
      accountId: record.accountId,
      filterId: view.id,
      filterIdLength: view.id.length,
      filterRevision: revision,
      idLength: record.id.length,
      order,
      record,
    };
    return { updateOne: { filter: { _id: `${view.id}:${record.id}`, filterRevision: { $lt: revision } }, update: { $set: doc }, upsert: true } };
  });
  return [...upserts, { deleteMany: { filter: { filterId: view.id, filterRevision: { $lt: revision } } } }];
}

function statusWrites(view: FilterView): AnyBulkWriteOperation<StatusDoc>[] {
  const revision = view.revision;
  const upserts = (view.deleted ? [] : view.statuses).map((status, order): AnyBulkWriteOperation<StatusDoc> => {
    const doc = {
      accountId: view.accountId,
      filterId: view.id,
      filterIdLength: view.id.length,
      filterRevision: revision,
      statusId: status.id,
      order,
      status: { id: status.id, statusId: status.statusId },
    };
    return { updateOne: { filter: { _id: `${view.id}:${status.id}`, filterRevision: { $lt: revision } }, update: { $set: doc }, upsert: true } };
  });
  return [...upserts, { deleteMany: { filter: { filterId: view.id, filterRevision: { $lt: revision } } } }];
}

function parkedWrite(projection: string, parked: ParkedEvent): AnyBulkWriteOperation<ParkedDoc> {
  const doc = {
    projection,
    position: toStoredPosition(parked.position),
    stream: parked.streamName,
    revision: parked.revision.toString(),
    type: parked.type,
    error: parked.error,
    parkedAt: parked.parkedAt,
  };
  return { updateOne: { filter: { _id: `${projection}\u0000${parked.streamName}\u0000${parked.revision}` }, update: { $set: doc }, upsert: true } };
}
