import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { AnnouncedPosition, AnnouncedPositions } from './announced-positions.ts';
import { readModelCall } from './mongo-errors.ts';
import { notFencedBy, refuseIfFenced } from './mongo-fences.ts';
import type { Fence } from '../../shared/fencing.ts';
import { belowPosition, fromStoredPosition, toStoredPosition, type StoredPosition } from './mongo-positions.ts';

interface AnnouncedDoc {
  _id: string;
  position: StoredPosition | null;
  /** The fencing token of the last announcer that wrote it (mongo-fences.ts). */
  fence?: number;
}

/** Documents of `announced_positions`, one per transport; a guarded update never moves one backwards. */
export class MongoAnnouncedPositions implements AnnouncedPositions {
  private readonly positions: Collection<AnnouncedDoc>;

  constructor(db: Db) {
    this.positions = db.collection('announced_positions');
  }

  announced(channel: string): Promise<AnnouncedPosition | null> {
    return readModelCall(async () => {
      const doc = await this.positions.findOne({ _id: channel });
      if (!doc) return null;
      return { position: doc.position === null ? null : fromStoredPosition(doc.position) };
    });
  }

  markAnnounced(channel: string, position: bigint | null, fence?: Fence): Promise<void> {
    return readModelCall(async () => {
      if (position === null) {
        await this.positions.updateOne({ _id: channel }, { $setOnInsert: { position: null } }, { upsert: true });
        return;
      }
      try {
        const guard = { $or: [{ position: null }, { position: belowPosition(position) }], ...(fence ? notFencedBy(fence) : {}) };
        const set = { position: toStoredPosition(position), ...(fence ? { fence: fence.token } : {}) };
        await this.positions.updateOne({ _id: channel, ...guard }, { $set: set }, { upsert: true });
      } catch (error) {
        // The guard matched nothing and the insert met the document: it is already at or past `position`,
        // or a later lease holder's announcer wrote it.
        if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
        if (fence) await refuseIfFenced(this.positions, channel, fence);
      }
    });
  }
}
