import type { RecordedEvent } from './event-store.ts';

/** The columns of an event, in the order `fromColumns` reads them. */
export const EVENT_COLUMNS = 'events.position, events.event_id, events.stream, events.revision, events.type, events.data, events.metadata, events.recorded_at';

type EventColumns = [number | bigint, string, string, number | bigint, string, string, string, string];

/**
 * An event read as a row of values (better-sqlite3's raw mode) rather than as an object: for the long
 * reads (projection, audits) building a keyed row object per event costs more than parsing its JSON.
 */
export function fromColumns(row: unknown[]): RecordedEvent {
  const [position, eventId, streamName, revision, type, data, metadata, recordedAt] = row as EventColumns;
  return {
    eventId,
    streamName,
    revision: BigInt(revision),
    position: BigInt(position),
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as unknown,
    recordedAt,
  };
}
