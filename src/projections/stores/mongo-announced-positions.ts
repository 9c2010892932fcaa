import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { AnnouncedPosition, AnnouncedPositions } from './announced-positions.ts';
import { mongoCall } from './mongo-errors.ts';
import { belowPosition, fromStoredPosition, toStoredPosition, type StoredPosition } from './mongo-positions.ts';

interface AnnouncedDoc {
  _id: string;
  position: StoredPosition | null;
}

/** Documents of `announced_positions`, one per transport; a guarded update never moves one backwards. */
export class MongoAnnouncedPositions implements AnnouncedPositions {
  private readonly positions: Collection<AnnouncedDoc>;

  constructor(db: Db) {
    this.positions = db.collection('announced_positions');
  }

  announced(channel: string): Promise<AnnouncedPosition | null> {
    return mongoCall(async () => {
      const doc = await this.positions.findOne({ _id: channel });
      if (!doc) return null;
      return { position: doc.position === null ? null : fromStoredPosition(doc.position) };
    });
  }

  markAnnounced(channel: string, position: bigint | null): Promise<void> {
    return mongoCall(async () => {
      if (position === null) {
        await this.positions.updateOne({ _id: channel }, { $setOnInsert: { position: null } }, { upsert: true });
        return;
      }
      try {
        const guard = { $or: [{ position: null }, { position: belowPosition(position) }] };
        await this.positions.updateOne({ _id: channel, ...guard }, { $set: { position: toStoredPosition(position) } }, { upsert: true });
      } catch (error) {
        // The guard matched nothing and the insert met the document: it is already at or past `position`.
        if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
      }
    });
  }
}
