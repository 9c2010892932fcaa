import { MongoServerError, type Collection, type Db, type Document } from 'mongodb';
import { FencedOffError, type Fence } from '../../shared/fencing.ts';

export interface LeaseDoc {
  _id: string;
  /** Empty once released: the document stays, so its fencing token keeps growing. */
  owner: string;
  expiresAt: Date;
  fence?: number;
}

export const leasesOf = (db: Db): Collection<LeaseDoc> => db.collection('projection_leases');

/**
 * The store's clock: `hello` answers mongod's `localTime` (src/mongo/db/repl/replication_info.cpp), so
 * lease expiry is judged by the server, never by a process whose clock may be skewed.
 */
export async function storeNow(db: Db): Promise<number> {
  const reply = await db.admin().command({ hello: 1 });
  if (!(reply.localTime instanceof Date)) throw new Error('the MongoDB server did not say its time (hello.localTime)');
  return reply.localTime.getTime();
}

/** Refuses at once when the lease was taken since with a larger token (a cheap check before a batch's writes). */
export async function checkLease(leases: Collection<LeaseDoc>, fence: Fence): Promise<void> {
  const newer = await leases.findOne({ _id: fence.lease, fence: { $gt: fence.token } }, { projection: { fence: 1 } });
  if (newer) throw new FencedOffError(fence, newer.fence ?? 0);
}

/** Matches a document last written with this token or an older one (or none: written before fencing). */
export const notFencedBy = (fence: Fence) => ({ fence: { $not: { $gt: fence.token } } });

/**
 * Claims `_id` of `collection` for `fence`: the document records the token, and the claim is refused when
 * it already holds a larger one. The document's update and the token check are one atomic write, so a
 * former holder cannot slip in after its successor's first write.
 */
export async function claim<T extends Document & { _id: string; fence?: number }>(collection: Collection<T>, id: string, fence: Fence): Promise<void> {
  try {
    await collection.updateOne({ _id: id, ...notFencedBy(fence) } as never, { $set: { fence: fence.token } } as never, { upsert: true });
  } catch (error) {
    if (error instanceof MongoServerError && error.code === 11000) await refuseIfFenced(collection, id, fence);
    throw error;
  }
}

/** After a guarded upsert met its document: throws FencedOffError when the document holds a larger token. */
export async function refuseIfFenced<T extends Document & { _id: string; fence?: number }>(collection: Collection<T>, id: string, fence: Fence): Promise<void> {
  const doc = await collection.findOne({ _id: id } as never, { projection: { fence: 1 } });
  const current = (doc as { fence?: number } | null)?.fence;
  if (current !== undefined && current > fence.token) throw new FencedOffError(fence, current);
}
