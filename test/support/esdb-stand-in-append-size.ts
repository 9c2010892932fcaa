import { createRequire } from 'node:module';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type * as Codes from '@eventstore/db-client/generated/code_pb.js';
import type * as Rpc from '@eventstore/db-client/generated/status_pb.js';
import type * as AnyPb from 'google-protobuf/google/protobuf/any_pb.js';
import type { ProposedEvent } from './esdb-stand-in-log.ts';

// EventStoreDB's MaxAppendSize, as the protocol STAND-IN (esdb-stand-in.ts) applies it to both append calls.
const require = createRequire(import.meta.url);
const shared = require('@eventstore/db-client/generated/shared_pb.js') as typeof Shared;
const rpc = require('@eventstore/db-client/generated/status_pb.js') as typeof Rpc;
const codes = require('@eventstore/db-client/generated/code_pb.js') as typeof Codes;
const { Any } = require('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPb;

/** `MaxAppendSize`, default 1_024 * 1_024 bytes (EventStore/EventStore v24.10.0, src/EventStore.Core/ClusterVNodeOptions.cs). */
export const MAX_APPEND_SIZE = 1_024 * 1_024;

/**
 * What the server counts towards it for one append, summed over the append's events
 * (ClientWriteRequest.AddEvents in Streams.BatchAppend.cs 350-353; Streams.Append.cs 74-78, checked after
 * each event): `Event.SizeOnDisk` (src/EventStore.Core/Data/Event.cs 23-24 at v24.10.0), written
 * `data?.Length ?? 0 + metadata?.Length ?? 0 + eventType.Length * 2`. In C# `??` binds looser than `+`
 * and groups to the right, so that is `data?.Length ?? ((0 + metadata?.Length) ?? (0 + eventType.Length * 2))`:
 * the data's bytes whenever there is data. Over gRPC there always is (`ProposedMessage.Data.ToByteArray()`,
 * empty rather than null), so metadata and type count for nothing. (Later servers add the parentheses.)
 */
export function appendSize(events: readonly ProposedEvent[]): number {
  return events.reduce((sum, e) => sum + e.data.length, 0);
}

/**
 * Streams.Append refuses with RpcExceptions.MaxAppendSizeExceeded: INVALID_ARGUMENT, `Maximum Append Size
 * of N Exceeded.`, trailers `exception: maximum-append-size-exceeded` and `maximum-append-size: N`, which
 * the client turns into MaxAppendSizeExceededError. Nothing is written.
 */
export function appendTooLarge(): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set('exception', 'maximum-append-size-exceeded');
  metadata.set('maximum-append-size', String(MAX_APPEND_SIZE));
  return { code: status.INVALID_ARGUMENT, details: `Maximum Append Size of ${MAX_APPEND_SIZE} Exceeded.`, metadata };
}

/**
 * Streams.BatchAppend answers the correlation id with `Status.MaximumAppendSizeExceeded(maxAppendSize)`
 * (Status.cs): INVALID_ARGUMENT, message `MaximumAppendSizeExceeded`, details packing
 * event_store.client.MaximumAppendSizeExceeded, and forgets the pending write, so later chunks of it are ignored.
 */
export function batchAppendTooLarge(): Rpc.Status {
  const details = new Any();
  details.pack(new shared.MaximumAppendSizeExceeded().setMaxappendsize(MAX_APPEND_SIZE).serializeBinary(), 'event_store.client.MaximumAppendSizeExceeded');
  return new rpc.Status().setCode(codes.Code.INVALID_ARGUMENT).setMessage('MaximumAppendSizeExceeded').setDetails(details);
}
