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

export interface EventRow {
  position: number | bigint;
  event_id: string;
  stream: string;
  revision: number | bigint;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

export const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  streamName: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as unknown,
  recordedAt: row.recorded_at,
});
