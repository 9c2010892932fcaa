import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type { LeaseHolder } from '../../shared/leases.ts';
import type { Fence } from '../../shared/fencing.ts';
import { checkLease, leasesOf, storeNow, type LeaseDoc } from './mongo-fences.ts';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import type { AnnouncedPosition } from './announced-positions.ts';
import { MongoAnnouncedPositions } from './mongo-announced-positions.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import { migrateMongo } from '../../shared/mongo-migrations.ts';
import { generationOfCheckpoints } from './generation-names.ts';
import { mongoReadModelsSchema, POINTER_ID } from './mongo-read-models-schema.ts';
import { dropCollections, MongoReadCollections } from './mongo-read-collections.ts';
import { readModelCall } from './mongo-errors.ts';
import type { ManagedReadStore } from './managed-read-store.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ParkedEvent, ProjectionBatch, ReadStore } from './read-store.ts';

const DEFAULT_DATABASE = 'content_filters';

export interface MongoReadStoreOptions {
  /**
   * Stands in for the server's clock in tests, which cannot move the stand-in's; production leaves it
   * unset and leases are judged by the server's own time (`hello`'s localTime), never this process's.
   */
  readonly serverClock?: () => number;
}

interface PointerDoc {
  _id: string;
  current: number;
  pending: number | null;
  next: number;
}

/**
 * MongoDB read models (`MONGODB_URL`; the database named in the URL, else `content_filters`). Like the
 * SQLite store, each call first reads which generation is current, so a swap reaches every process.
 * Leases expire by the server's clock and carry fencing tokens (mongo-fences.ts): a batch or announcer
 * checkpoint written with an older token than the lease's is refused, whatever the writer's clock says.
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
    private readonly serverClock: (() => number) | undefined,
  ) {
    this.pointer = db.collection('read_model_pointer');
    this.leases = leasesOf(db);
    this.announcedPositions = new MongoAnnouncedPositions(db);
  }

  /** Connects, brings the database's schema up to date and creates the current generation's indexes. */
  static async connect(url: string, database?: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    return readModelCall(async () => {
      const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
      const named = client.options.dbName;
      const store = new MongoReadStore(client, client.db(database ?? (named && named !== 'test' ? named : DEFAULT_DATABASE)), null, options.serverClock);
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
    return this.on(async (c) => {
      if (batch.fence) await checkLease(this.leases, batch.fence);
      await c.store(batch);
    });
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

  async markAnnounced(channel: string, position: bigint | null, fence?: Fence): Promise<void> {
    if (fence) await readModelCall(() => checkLease(this.leases, fence));
    return this.announcedPositions.markAnnounced(channel, position, fence);
  }

  /** Renews the owner's lease, or takes a free or expired one (by the server's clock) with the next fencing token. */
  tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return readModelCall(async () => {
      const now = await this.storeNow();
      const expiresAt = new Date(now + ttlMs);
      const renewed = await this.leases.updateOne({ _id: name, owner }, { $set: { expiresAt } });
      if (renewed.matchedCount === 1) return true;
      const taken = await this.leases.updateOne({ _id: name, expiresAt: { $lte: new Date(now) } }, { $set: { owner, expiresAt }, $inc: { fence: 1 } });
      if (taken.matchedCount === 1) return true;
      try {
        // No document (never taken, or deleted by hand or by an older release): the first token is the
        // server's time in ms, above any count of acquisitions a deleted document may have reached.
        await this.leases.insertOne({ _id: name, owner, expiresAt, fence: now });
        return true;
      } catch (error) {
        // The insert met the other owner's live lease.
        if (error instanceof MongoServerError && error.code === 11000) return false;
        throw error;
      }
    });
  }

  /** Expires the lease at once; the document stays, so the next holder's token is still larger. */
  releaseLease(name: string, owner: string): Promise<void> {
    return readModelCall(async () => {
      await this.leases.updateOne({ _id: name, owner }, { $set: { owner: '', expiresAt: new Date(0) } });
    });
  }

  leaseHolder(name: string): Promise<LeaseHolder | null> {
    return readModelCall(async () => {
      const [doc, storeTime] = await Promise.all([this.leases.findOne({ _id: name }), this.storeNow()]);
      return doc?.owner ? { owner: doc.owner, expiresAt: doc.expiresAt.getTime(), fence: doc.fence ?? 0, storeTime } : null;
    });
  }

  takeOverLease(name: string, from: string, owner: string, ttlMs: number): Promise<boolean> {
    return readModelCall(async () => {
      const expiresAt = new Date((await this.storeNow()) + ttlMs);
      const result = await this.leases.updateOne({ _id: name, owner: from }, { $set: { owner, expiresAt }, $inc: { fence: 1 } });
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
    return readModelCall(async () => {
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
    return readModelCall(async () => {
      const before = await this.pointer.findOneAndUpdate({ _id: POINTER_ID }, { $inc: { next: 1 } }, { returnDocument: 'before' });
      if (!before) throw new Error('read model pointer missing');
      await this.collectionsOf(before.next);
      return before.next;
    });
  }

  dropGeneration(generation: number): Promise<boolean> {
    return readModelCall(async () => {
      const { current, pending } = await this.readPointer();
      if (generation === current || generation === pending) return false;
      await dropCollections(this.db, generation);
      this.generations.delete(generation);
      return true;
    });
  }

  generation(generation: number): ReadStore {
    return new MongoReadStore(this.client, this.db, generation, this.serverClock);
  }

  markPending(generation: number): Promise<void> {
    return readModelCall(async () => {
      await this.pointer.updateOne({ _id: POINTER_ID }, { $set: { pending: generation } });
    });
  }

  swapIn(generation: number): Promise<boolean> {
    return readModelCall(async () => {
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

  private storeNow(): Promise<number> {
    return this.serverClock ? Promise.resolve(this.serverClock()) : storeNow(this.db);
  }

  private on<T>(call: (collections: MongoReadCollections) => Promise<T>): Promise<T> {
    return readModelCall(async () => call(await this.collections()));
  }

  private readPointer(): Promise<PointerDoc> {
    return readModelCall(async () => {
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
