import type { ResolvedEvent } from '@eventstore/db-client';
import { splitMetadata } from './esdb-chain-link.ts';
import { packPosition } from './esdb-position.ts';
import type { RecordedEvent } from './event-store.ts';

type EsdbRecorded = NonNullable<ResolvedEvent['event']>;

/**
 * One stored event in the port's shape, decoded on its own. The client parses an `application/json` event
 * itself and hands over its text when it is not JSON; it hands over the bytes of any other content type
 * (EventStore/EventStore-Client-NodeJS packages/db-client/src/utils/convertGrpcEvent.ts). This project's
 * events are JSON objects; an event that is not comes back with `undecodable` set and null data, for the
 * projector to park, instead of failing the whole read.
 */
export function toRecorded(event: EsdbRecorded, position: bigint = event.position ? packPosition(event.position) : -1n): RecordedEvent {
  const base = {
    eventId: event.id,
    streamName: event.streamId,
    revision: event.revision,
    position,
    type: event.type,
    // The chain's hash is the store's, not the event's: readers see the metadata the service wrote.
    metadata: event.metadata instanceof Uint8Array ? decodeMetadata(event.metadata) : splitMetadata(event.metadata).rest,
    recordedAt: event.created.toISOString(),
  };
  if (event.isJson) return typeof event.data === 'string' ? { ...base, data: null, undecodable: 'malformed JSON' } : { ...base, data: event.data };
  try {
    return { ...base, data: JSON.parse(Buffer.from(event.data).toString('utf8')) as unknown };
  } catch (error) {
    return { ...base, data: null, undecodable: `not JSON (${(error as Error).message})` };
  }
}

function decodeMetadata(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return {};
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
  } catch {
    return {};
  }
}
