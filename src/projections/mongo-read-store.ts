import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type { FilterView, V1FilterRecord } from './filter-view.ts';
import { dropCollections, generationOfCheckpoints, MongoReadCollections } from './mongo-read-collections.ts';
import type { ManagedReadStore } from './read-model-admin.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ReadStore } from './read-store.ts';

const POINTER_ID = 'read-models';
const DEFAULT_DATABASE = 'content_filters';

interface PointerDoc { _id: string; current: number; pending: number | null; next: number }
interface LeaseDoc { _id: string; owner: string; expiresAt: Date }

/**
 * MongoDB read models (`MONGODB_URL`; the database named in the URL, else `content_filters`). Like the
 * SQLite store, each call first reads which generation is current, so a swap reaches every process.
 * Leases compare the processes' clocks, which are expected to be kept in sync (NTP).
 */
export class MongoReadStore implements ManagedReadStore {
  private readonly generations = new Map<number, Promise<MongoReadCollections>>();
  private readonly pointer: Collection<PointerDoc>;
  private readonly leases: Collection<LeaseDoc>;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly pinned: number | null,
  ) {
    this.pointer = db.collection('read_model_pointer');
    this.leases = db.collection('projection_leases');
  }

  /** Connects, makes sure the generation pointer exists and creates the current generation's indexes. */
  static async connect(url: string, database?: string): Promise<MongoReadStore> {
    const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
    const named = client.options.dbName;
    const store = new MongoReadStore(client, client.db(database ?? (named && named !== 'test' ? named : DEFAULT_DATABASE)), null);
    await store.pointer.updateOne({ _id: POINTER_ID }, { $setOnInsert: { current: 0, pending: null, next: 1 } }, { upsert: true });
    await store.collections();
    return store;
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    return (await this.collections()).loadFilter(filterId);
  }

  async saveFilter(view: FilterView, checkpoint: Checkpoint): Promise<void> {
    await (await this.collections()).save(view, checkpoint);
  }

  async advanceCheckpoint(checkpoint: Checkpoint): Promise<void> {
    await (await this.collections()).advance(checkpoint);
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    return (await this.collections()).checkpoint(projection);
  }

  async listFilters(accountId: string): Promise<readonly FilterView[]> {
    return (await this.collections()).listFilters(accountId);
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    return (await this.collections()).getFilter(accountId, filterId);
  }

  async listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]> {
    return (await this.collections()).listV1Filters(accountId);
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    return (await this.collections()).getV1Filter(accountId, keywordId);
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    return (await this.collections()).findKeyword(accountId, keywordId);
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    return (await this.collections()).findFilterStatus(accountId, filterStatusId);
  }

  async tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = new Date();
    try {
      await this.leases.updateOne(
        { _id: name, $or: [{ owner }, { expiresAt: { $lte: now } }] },
        { $set: { owner, expiresAt: new Date(now.getTime() + ttlMs) } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      // The guard matched nothing and the insert met the other owner's lease.
      if (error instanceof MongoServerError && error.code === 11000) return false;
      throw error;
    }
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner });
  }

  async currentGeneration(): Promise<number> {
    return (await this.readPointer()).current;
  }

  async pendingGeneration(): Promise<number | null> {
    return (await this.readPointer()).pending;
  }

  async createGeneration(): Promise<number> {
    const before = await this.pointer.findOneAndUpdate({ _id: POINTER_ID }, { $inc: { next: 1 } }, { returnDocument: 'before' });
    if (!before) throw new Error('read model pointer missing');
    const names = await this.db.listCollections({}, { nameOnly: true }).toArray();
    for (const { name } of names) {
      const generation = generationOfCheckpoints(name);
      if (generation !== null && generation < before.current) await dropCollections(this.db, generation);
    }
    for (const cached of this.generations.keys()) if (cached < before.current) this.generations.delete(cached);
    await this.collectionsOf(before.next);
    return before.next;
  }

  generation(generation: number): ReadStore {
    const pinned = new MongoReadStore(this.client, this.db, generation);
    return pinned;
  }

  async markPending(generation: number): Promise<void> {
    await this.pointer.updateOne({ _id: POINTER_ID }, { $set: { pending: generation } });
  }

  async swapIn(generation: number): Promise<boolean> {
    const result = await this.pointer.updateOne({ _id: POINTER_ID, pending: generation }, { $set: { current: generation, pending: null } });
    return result.modifiedCount === 1;
  }

  async close(): Promise<void> {
    // A pinned store shares its parent's client; the parent closes it.
    if (this.pinned === null) await this.client.close();
  }

  private async readPointer(): Promise<PointerDoc> {
    const pointer = await this.pointer.findOne({ _id: POINTER_ID });
    if (!pointer) throw new Error('read model pointer missing');
    return pointer;
  }

  private async collections(): Promise<MongoReadCollections> {
    return this.collectionsOf(this.pinned ?? (await this.readPointer()).current);
  }

  /** Indexes are created once per generation and process, before the generation's first use. */
  private collectionsOf(generation: number): Promise<MongoReadCollections> {
    let found = this.generations.get(generation);
    if (!found) {
      const collections = new MongoReadCollections(this.db, generation);
      found = collections.createIndexes().then(() => collections);
      found.catch(() => this.generations.delete(generation));
      this.generations.set(generation, found);
    }
    return found;
  }
}
