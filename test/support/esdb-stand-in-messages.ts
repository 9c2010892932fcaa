import { createRequire } from 'node:module';
import { Metadata, status } from '@grpc/grpc-js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type { LogPosition, StoredEvent } from './esdb-stand-in-log.ts';

// The read messages of the EventStoreDB protocol STAND-IN (not a server): see esdb-stand-in.ts.
const require = createRequire(import.meta.url);
const pb = require('@eventstore/db-client/generated/streams_pb.js') as typeof Streams;
const shared = require('@eventstore/db-client/generated/shared_pb.js') as typeof Shared;

export type ReadOptions = Streams.ReadReq.Options;

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
export const streamNameOf = (id: Shared.StreamIdentifier | undefined) => text(id?.getStreamName_asU8() ?? new Uint8Array());

export function toReadResp(event: StoredEvent): Streams.ReadResp {
  const recorded = new pb.ReadResp.ReadEvent.RecordedEvent();
  recorded.setId(new shared.UUID().setString(event.id));
  recorded.setStreamIdentifier(new shared.StreamIdentifier().setStreamName(Buffer.from(event.stream, 'utf8')));
  recorded.setStreamRevision(event.revision.toString());
  recorded.setCommitPosition(event.commit.toString());
  recorded.setPreparePosition(event.prepare.toString());
  recorded.getMetadataMap().set('type', event.type).set('content-type', event.contentType).set('created', event.created.toString());
  recorded.setCustomMetadata(event.customMetadata);
  recorded.setData(event.data);
  const read = new pb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(event.commit.toString());
  return new pb.ReadResp().setEvent(read);
}

/** The filter of a filtered $all read or subscription: stream-name or event-type prefixes or a regex. */
export function filterOf(options: ReadOptions): (event: StoredEvent) => boolean {
  if (!options.hasFilter()) return () => true;
  const filter = options.getFilter()!;
  const expression = filter.hasStreamIdentifier() ? filter.getStreamIdentifier()! : filter.getEventType()!;
  const field = (event: StoredEvent) => (filter.hasStreamIdentifier() ? event.stream : event.type);
  const prefixes = expression.getPrefixList();
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  return (event) => (prefixes.length === 0 || prefixes.some((p) => field(event).startsWith(p))) && (!regex || regex.test(field(event)));
}

export const checkpointAt = (position: bigint) =>
  new pb.ReadResp().setCheckpoint(new pb.ReadResp.Checkpoint().setCommitPosition(position.toString()).setPreparePosition(position.toString()));

export function failure(code: status, details: string, metadata = new Metadata()) {
  return Object.assign(new Error(details), { code, details, metadata });
}

/** RpcExceptions.StreamDeleted (v24.10.0): FAILED_PRECONDITION naming the exception in the trailers. */
export function streamDeleted(stream: string) {
  const metadata = new Metadata();
  metadata.set('exception', 'stream-deleted');
  metadata.set('stream-name', stream);
  return failure(status.FAILED_PRECONDITION, `Event stream '${stream}' is deleted.`, metadata);
}

export function allStart(options: ReadOptions): LogPosition | 'start' | 'end' {
  const all = options.getAll();
  if (all?.hasEnd()) return 'end';
  const position = all?.getPosition();
  return position ? { commit: BigInt(position.getCommitPosition()), prepare: BigInt(position.getPreparePosition()) } : 'start';
}
