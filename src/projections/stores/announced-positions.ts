import type { Fence } from '../../shared/fencing.ts';

/** Where an announcer stands: null when it started from the start of the log and has announced nothing yet. */
export interface AnnouncedPosition {
  readonly position: bigint | null;
}

/**
 * The announcers' checkpoints, one per transport (NATS, Redis), kept beside the read models but outside
 * their generations, so a rebuild never sends an announcer back. A checkpoint never moves backwards.
 */
export interface AnnouncedPositions {
  /** Null when this transport's announcer never started on this store. */
  announced(channel: string): Promise<AnnouncedPosition | null>;
  /** Records that everything up to `position` (null: nothing yet, from the log's start) is announced. */
  /** With `fence`, refused (FencedOffError) where the store issues tokens and the lease has a larger one. */
  markAnnounced(channel: string, position: bigint | null, fence?: Fence): Promise<void>;
}
