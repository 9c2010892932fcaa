import { Long, MongoServerError, type Collection, type Db } from 'mongodb';
import { isId } from '../shared/ids.ts';
import type { FilterView, V1FilterRecord } from './filter-view.ts';
import { v1RecordsOf } from './filter-view.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation } from './read-store.ts';

const BASE_NAMES = ['filters', 'v1_filters', 'filter_statuses', 'checkpoints'] as const;

/** Generation 0 keeps the plain names; later generations get a suffix. */
export const collectionName = (base: (typeof BASE_NAMES)[number], generation: number): string =>
  generation === 0 ? base : `${base}_g${generation}`;

export const generationOfCheckpoints = (name: string): number | null =>
  name === 'checkpoints' ? 0 : /^checkpoints_g(\d+)$/.exec(name) ? Number(name.slice('checkpoints_g'.length)) : null;

export async function dropCollections(db: Db, generation: number): Promise<void> {
  for (const base of BASE_NAMES) await db.dropCollection(collectionName(base, generation)).catch(() => false);
}

interface FilterDoc { _id: string; accountId: string; revision: number; deleted: boolean; idLength: number; view: FilterView }
interface V1Doc { _id: string; accountId: string; filterId: string; filterRevision: number; idLength: number; record: V1FilterRecord }
interface StatusDoc { _id: string; accountId: string; filterId: string; filterRevision: number }
interface CheckpointDoc { _id: string; position: Long }

const DUPLICATE_KEY = 11000;

/** An upsert whose guard did not match an existing document: a newer write is already there. */
async function unlessNewer(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
  }
}

/** Ids are digit strings of varying length: shorter first, then by string, is numeric order. */
const BY_ID = { idLength: 1, _id: 1 } as const;

/**
 * One generation's collections. Without multi-document transactions every write is guarded by the
 * filter's revision and the filter document is written last, so a step repeated after a crash completes
 * what was missing and changes nothing else. Every id is checked before it reaches a query.
 */
export class MongoReadCollections {
  private readonly filters: Collection<FilterDoc>;
  private readonly v1: Collection<V1Doc>;
  private readonly statuses: Collection<StatusDoc>;
  private readonly checkpoints: Collection<CheckpointDoc>;

  constructor(db: Db, generation: number) {
    const [filters, v1, statuses, checkpoints] = BASE_NAMES.map((base) => collectionName(base, generation)) as [string, string, string, string];
    this.filters = db.collection(filters);
    this.v1 = db.collection(v1);
    this.statuses = db.collection(statuses);
    this.checkpoints = db.collection(checkpoints);
  }

  async createIndexes(): Promise<void> {
    await this.filters.createIndex({ accountId: 1, deleted: 1, ...BY_ID });
    await this.v1.createIndex({ accountId: 1, ...BY_ID });
    await this.v1.createIndex({ filterId: 1, filterRevision: 1 });
    await this.statuses.createIndex({ filterId: 1, filterRevision: 1 });
    await this.checkpoints.createIndex({ _id: 1, position: 1 });
  }

  async save(view: FilterView, checkpoint: Checkpoint): Promise<void> {
    const stored = await this.filters.findOne({ _id: view.id }, { projection: { revision: 1 } });
    if (!stored || stored.revision < view.revision) {
      const revision = view.revision;
      for (const record of v1RecordsOf(view)) {
        const doc = { accountId: record.accountId, filterId: record.filterId, filterRevision: revision, idLength: record.id.length, record };
        await unlessNewer(this.v1.updateOne({ _id: record.id, filterRevision: { $lt: revision } }, { $set: doc }, { upsert: true }));
      }
      await this.v1.deleteMany({ filterId: view.id, filterRevision: { $lt: revision } });
      for (const status of view.deleted ? [] : view.statuses) {
        const doc = { accountId: view.accountId, filterId: view.id, filterRevision: revision };
        await unlessNewer(this.statuses.updateOne({ _id: status.id, filterRevision: { $lt: revision } }, { $set: doc }, { upsert: true }));
      }
      await this.statuses.deleteMany({ filterId: view.id, filterRevision: { $lt: revision } });
      const doc = { accountId: view.accountId, revision, deleted: view.deleted, idLength: view.id.length, view };
      await unlessNewer(this.filters.updateOne({ _id: view.id, revision: { $lt: revision } }, { $set: doc }, { upsert: true }));
    }
    await this.advance(checkpoint);
  }

  async advance({ projection, position }: Checkpoint): Promise<void> {
    const at = Long.fromBigInt(position);
    await unlessNewer(this.checkpoints.updateOne({ _id: projection, position: { $lt: at } }, { $set: { position: at } }, { upsert: true }));
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    const doc = await this.checkpoints.findOne({ _id: String(projection) }, { promoteLongs: false });
    return doc ? doc.position.toBigInt() : null;
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    if (!isId(filterId)) return null;
    return (await this.filters.findOne({ _id: filterId }))?.view ?? null;
  }

  async listFilters(accountId: string): Promise<FilterView[]> {
    if (!isId(accountId)) return [];
    return (await this.filters.find({ accountId, deleted: false }).sort(BY_ID).toArray()).map((doc) => doc.view);
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    if (!isId(accountId) || !isId(filterId)) return null;
    return (await this.filters.findOne({ _id: filterId, accountId, deleted: false }))?.view ?? null;
  }

  async listV1Filters(accountId: string): Promise<V1FilterRecord[]> {
    if (!isId(accountId)) return [];
    return (await this.v1.find({ accountId }).sort(BY_ID).toArray()).map((doc) => doc.record);
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    if (!isId(accountId) || !isId(keywordId)) return null;
    return (await this.v1.findOne({ _id: keywordId, accountId }))?.record ?? null;
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    const record = await this.getV1Filter(accountId, keywordId);
    if (!record) return null;
    return { filterId: record.filterId, keyword: { id: record.id, keyword: record.phrase, wholeWord: record.wholeWord } };
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    if (!isId(accountId) || !isId(filterStatusId)) return null;
    const doc = await this.statuses.findOne({ _id: filterStatusId, accountId });
    if (!doc) return null;
    const status = (await this.getFilter(accountId, doc.filterId))?.statuses.find((s) => s.id === filterStatusId);
    return status ? { filterId: doc.filterId, status } : null;
  }
}
