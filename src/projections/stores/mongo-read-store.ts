import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type { LeaseHolder } from '../../shared/leases.ts';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import type { AnnouncedPosition } from './announced-positions.ts';
import { MongoAnnouncedPositions } from './mongo-announced-positions.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import { migrateMongo } from '../../shared/mongo-migrations.ts';
import { generationOfCheckpoints } from './generation-names.ts';
import { mongoReadModelsSchema, POINTER_ID } from './mongo-read-models-schema.ts';
import { dropCollections, MongoReadCollections } from './mongo-read-collections.ts';
import { mongoCall } from './mongo-errors.ts';
import type { ManagedReadStore } from './managed-read-store.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ParkedEvent, ProjectionBatch, ReadStore } from './read-store.ts';

const DEFAULT_DATABASE = 'content_filters';

interface PointerDoc {
  _id: string;
  current: number;
  pending: number | null;
  next: number;
}
interface LeaseDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
}

export interface MongoReadStoreOptions {
  /** The clock leases are measured by (tests move it instead of waiting). */
  readonly now?: () => number;
}

/**
 * MongoDB read models (`MONGODB_URL`; the database named in the URL, else `content_filters`). Like the
 * SQLite store, each call first reads which generation is current, so a swap reaches every process.
 * Leases compare the processes' clocks, which are expected to be kept in sync (NTP).
 */
export class MongoReadStore implements ManagedReadStore {
  private readonly generations = new Map<number, Promise<MongoReadCollections>>();
  private readonly pointer: Collection<PointerDoc>;
  private readonly leases: Collection<LeaseDoc>;
  private readonly announcedPositions: MongoAnnouncedPositions;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly pinned: number | null,
    private readonly now: () => number,
  ) {
    this.pointer = db.collection('read_model_pointer');
    this.leases = db.collection('projection_leases');
    this.announcedPositions = new MongoAnnouncedPositions(db);
  }

  /** Connects, brings the database's schema up to date and creates the current generation's indexes. */
  static async connect(url: string, database?: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    return mongoCall(async () => {
      const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
      const named = client.options.dbName;
      const store = new MongoReadStore(client, client.db(database ?? (named && named !== 'test' ? named : DEFAULT_DATABASE)), null, options.now ?? Date.now);
      try {
        await migrateMongo(store.db, mongoReadModelsSchema);
        await store.collections();
      } catch (error) {
        await client.close();
        throw error;
      }
      return store;
    });
  }

  loadFilter(filterId: string): Promise<FilterView | null> {
    return this.on((c) => c.loadFilter(filterId));
  }

  loadFilters(filterIds: readonly string[]): Promise<ReadonlyMap<string, FilterView>> {
    return this.on((c) => c.loadFilters(filterIds));
  }

  applyBatch(batch: ProjectionBatch): Promise<void> {
    return this.on((c) => c.store(batch));
  }

  saveFilter(view: FilterView, { projection, position }: Checkpoint): Promise<void> {
    return this.applyBatch({ projection, position, views: [view] });
  }

  advanceCheckpoint({ projection, position }: Checkpoint): Promise<void> {
    return this.applyBatch({ projection, position, views: [] });
  }

  checkpoint(projection: string): Promise<bigint | null> {
    return this.on((c) => c.checkpoint(projection));
  }

  parkedEvents(projection: string): Promise<readonly ParkedEvent[]> {
    return this.on((c) => c.parkedEvents(projection));
  }

  listFilters(accountId: string): Promise<readonly FilterView[]> {
    return this.on((c) => c.listFilters(accountId));
  }

  accountsAfter(after: string | null, limit: number): Promise<readonly string[]> {
    return this.on((c) => c.accountsAfter(after, limit));
  }

  filtersVersion(accountId: string): Promise<string> {
    return this.on((c) => c.filtersVersion(accountId));
  }

  accountUsage(accountId: string, exceptFilterId: string): Promise<AccountUsage> {
    return this.on((c) => c.accountUsage(accountId, exceptFilterId));
  }

  getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    return this.on((c) => c.getFilter(accountId, filterId));
  }

  listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]> {
    return this.on((c) => c.listV1Filters(accountId));
  }

  getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    return this.on((c) => c.getV1Filter(accountId, keywordId));
  }

  findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    return this.on((c) => c.findKeyword(accountId, keywordId));
  }

  findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    return this.on((c) => c.findFilterStatus(accountId, filterStatusId));
  }

  announced(channel: string): Promise<AnnouncedPosition | null> {
    return this.announcedPositions.announced(channel);
  }

  markAnnounced(channel: string, position: bigint | null): Promise<void> {
    return this.announcedPositions.markAnnounced(channel, position);
  }

  tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return mongoCall(async () => {
      const now = new Date(this.now());
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
    });
  }

  releaseLease(name: string, owner: string): Promise<void> {
    return mongoCall(async () => {
      await this.leases.deleteOne({ _id: name, owner });
    });
  }

  leaseHolder(name: string): Promise<LeaseHolder | null> {
    return mongoCall(async () => {
      const doc = await this.leases.findOne({ _id: name });
      return doc ? { owner: doc.owner, expiresAt: doc.expiresAt.getTime() } : null;
    });
  }

  takeOverLease(name: string, from: string, owner: string, ttlMs: number): Promise<boolean> {
    return mongoCall(async () => {
      const result = await this.leases.updateOne({ _id: name, owner: from }, { $set: { owner, expiresAt: new Date(this.now() + ttlMs) } });
      return result.modifiedCount === 1;
    });
  }

  async currentGeneration(): Promise<number> {
    return (await this.readPointer()).current;
  }

  async pendingGeneration(): Promise<number | null> {
    return (await this.readPointer()).pending;
  }

  createGeneration(): Promise<number> {
    return mongoCall(async () => {
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
    });
  }

  createScratchGeneration(): Promise<number> {
    return mongoCall(async () => {
      const before = await this.pointer.findOneAndUpdate({ _id: POINTER_ID }, { $inc: { next: 1 } }, { returnDocument: 'before' });
      if (!before) throw new Error('read model pointer missing');
      await this.collectionsOf(before.next);
      return before.next;
    });
  }

  dropGeneration(generation: number): Promise<boolean> {
    return mongoCall(async () => {
      const { current, pending } = await this.readPointer();
      if (generation === current || generation === pending) return false;
      await dropCollections(this.db, generation);
      this.generations.delete(generation);
      return true;
    });
  }

  generation(generation: number): ReadStore {
    return new MongoReadStore(this.client, this.db, generation, this.now);
  }

  markPending(generation: number): Promise<void> {
    return mongoCall(async () => {
      await this.pointer.updateOne({ _id: POINTER_ID }, { $set: { pending: generation } });
    });
  }

  swapIn(generation: number): Promise<boolean> {
    return mongoCall(async () => {
      const result = await this.pointer.updateOne({ _id: POINTER_ID, pending: generation }, { $set: { current: generation, pending: null } });
      return result.modifiedCount === 1;
    });
  }

  /** MongoDB has no cheap way to tell that nothing changed: answers are built anew every time. */
  changeStamp(): null {
    return null;
  }

  async close(): Promise<void> {
    // A pinned store shares its parent's client; the parent closes it.
    if (this.pinned === null) await this.client.close();
  }

  private on<T>(call: (collections: MongoReadCollections) => Promise<T>): Promise<T> {
    return mongoCall(async () => call(await this.collections()));
  }

  private readPointer(): Promise<PointerDoc> {
    return mongoCall(async () => {
      const pointer = await this.pointer.findOne({ _id: POINTER_ID });
      if (!pointer) throw new Error('read model pointer missing');
      return pointer;
    });
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
