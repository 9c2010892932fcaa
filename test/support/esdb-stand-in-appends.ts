import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { status, type sendUnaryData, type ServerDuplexStream, type ServerReadableStream, type ServerUnaryCall } from '@grpc/grpc-js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type * as Features from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as Rpc from '@eventstore/db-client/generated/status_pb.js';
import type * as AnyPb from 'google-protobuf/google/protobuf/any_pb.js';
import type * as EmptyPb from 'google-protobuf/google/protobuf/empty_pb.js';
import { appendSize, appendTooLarge, batchAppendTooLarge, MAX_APPEND_SIZE } from './esdb-stand-in-append-size.ts';
import type { Expected, ProposedEvent, StandInLog } from './esdb-stand-in-log.ts';

// The append half of the EventStoreDB protocol STAND-IN (not a server): see esdb-stand-in.ts.
const require = createRequire(import.meta.url);
const pb = require('@eventstore/db-client/generated/streams_pb.js') as typeof Streams;
const shared = require('@eventstore/db-client/generated/shared_pb.js') as typeof Shared;
const features = require('@eventstore/db-client/generated/serverfeatures_pb.js') as typeof Features;
const rpc = require('@eventstore/db-client/generated/status_pb.js') as typeof Rpc;
const { Any } = require('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPb;
const { Empty } = require('google-protobuf/google/protobuf/empty_pb.js') as typeof EmptyPb;

const streamNameOf = (id: Shared.StreamIdentifier | undefined) => Buffer.from(id?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
const ALREADY_EXISTS = 6; // google.rpc.Code, what EventStoreDB puts on a BatchAppend WrongExpectedVersion.

/** How many appends each call has served. */
export interface Served {
  Append: number;
  BatchAppend: number;
}

type Proposed = Streams.AppendReq.ProposedMessage | Streams.BatchAppendReq.ProposedMessage;

function toProposed(message: Proposed): ProposedEvent {
  const metadata = message.getMetadataMap();
  return {
    id: message.getId()?.getString() || randomUUID(),
    type: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

/** Streams.Append (client streaming): options first, then one proposed message per event. */
export function append(log: StandInLog, served: Served) {
  return (call: ServerReadableStream<Streams.AppendReq, Streams.AppendResp>, done: sendUnaryData<Streams.AppendResp>): void => {
    served.Append += 1;
    let options: Streams.AppendReq.Options | null = null;
    const proposed: ProposedEvent[] = [];
    call.on('data', (req: Streams.AppendReq) => {
      if (req.hasOptions()) options = req.getOptions()!;
      const message = req.getProposedMessage();
      if (message) proposed.push(toProposed(message));
    });
    call.on('end', () => {
      if (!options) return done({ code: status.INVALID_ARGUMENT, details: 'the first AppendReq must carry the options' });
      if (appendSize(proposed) > MAX_APPEND_SIZE) return done(appendTooLarge());
      const expected: Expected = options.hasRevision()
        ? { kind: 'revision', revision: BigInt(options.getRevision()) }
        : { kind: options.hasNoStream() ? 'no_stream' : options.hasStreamExists() ? 'stream_exists' : 'any' };
      const outcome = log.append(streamNameOf(options.getStreamIdentifier()), expected, proposed);
      const response = new pb.AppendResp();
      if (outcome.ok) {
        // As the server does: the commit position in both halves, i.e. the position of the first event.
        const at = outcome.commit.toString();
        const position = new pb.AppendResp.Position().setCommitPosition(at).setPreparePosition(at);
        return done(null, response.setSuccess(new pb.AppendResp.Success().setCurrentRevision(outcome.revision.toString()).setPosition(position)));
      }
      // A wrong expected revision is answered inside AppendResp, not with a gRPC error status.
      const wrong = new pb.AppendResp.WrongExpectedVersion();
      if (outcome.current === null) wrong.setCurrentNoStream(new shared.Empty());
      else wrong.setCurrentRevision(outcome.current.toString());
      if (expected.kind === 'revision') wrong.setExpectedRevision(expected.revision.toString());
      else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new shared.Empty());
      else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new shared.Empty());
      else wrong.setExpectedAny(new shared.Empty());
      done(null, response.setWrongExpectedVersion(wrong));
    });
  };
}

/**
 * Streams.BatchAppend (bidirectional, one call for many appends): requests carry a correlation id, the
 * options in the first, and the append happens at `is_final`. A wrong expected revision is answered
 * with a google.rpc.Status (ALREADY_EXISTS) whose details pack event_store.client.WrongExpectedVersion.
 */
export function batchAppend(log: StandInLog, open: Set<{ end(): void }>, served: Served) {
  return (call: ServerDuplexStream<Streams.BatchAppendReq, Streams.BatchAppendResp>): void => {
    open.add(call);
    const pending = new Map<string, { options: Streams.BatchAppendReq.Options; events: ProposedEvent[] }>();
    call.on('data', (req: Streams.BatchAppendReq) => {
      const id = req.getCorrelationId()?.getString() ?? '';
      // As the server: a chunk whose write is not pending (refused as too large) is ignored.
      if (!pending.has(id) && !req.hasOptions()) return;
      const entry = pending.get(id) ?? { options: req.getOptions()!, events: [] };
      pending.set(id, entry);
      entry.events.push(...req.getProposedMessagesList().map(toProposed));
      if (appendSize(entry.events) > MAX_APPEND_SIZE) {
        pending.delete(id);
        const refusal = new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(entry.options.getStreamIdentifier());
        call.write(refusal.setError(batchAppendTooLarge()));
        return;
      }
      if (!req.getIsFinal()) return;
      pending.delete(id);
      served.BatchAppend += 1;
      const options = entry.options;
      const expected: Expected = options.hasStreamPosition()
        ? { kind: 'revision', revision: BigInt(options.getStreamPosition()) }
        : { kind: options.hasNoStream() ? 'no_stream' : options.hasStreamExists() ? 'stream_exists' : 'any' };
      const outcome = log.append(streamNameOf(options.getStreamIdentifier()), expected, entry.events);
      const response = new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(options.getStreamIdentifier());
      if (outcome.ok) {
        const at = outcome.commit.toString();
        const position = new shared.AllStreamPosition().setCommitPosition(at).setPreparePosition(at);
        response.setSuccess(new pb.BatchAppendResp.Success().setCurrentRevision(outcome.revision.toString()).setPosition(position));
      } else {
        const wrong = new shared.WrongExpectedVersion();
        if (outcome.current === null) wrong.setCurrentNoStream(new Empty());
        else wrong.setCurrentStreamRevision(outcome.current.toString());
        if (expected.kind === 'revision') wrong.setExpectedStreamPosition(expected.revision.toString());
        else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new Empty());
        else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
        else wrong.setExpectedAny(new Empty());
        const details = new Any();
        details.pack(wrong.serializeBinary(), 'event_store.client.WrongExpectedVersion');
        response.setError(new rpc.Status().setCode(ALREADY_EXISTS).setMessage('WrongExpectedVersion').setDetails(details));
      }
      call.write(response);
    });
    call.on('end', () => {
      open.delete(call);
      call.end();
    });
  };
}

/** ServerFeatures.GetSupportedMethods, naming BatchAppend the way a 21.10+ server does. */
export function supportedMethods(version: string) {
  return (_call: ServerUnaryCall<unknown, Features.SupportedMethods>, done: sendUnaryData<Features.SupportedMethods>): void => {
    const methods = new features.SupportedMethods().setEventStoreServerVersion(version);
    methods.addMethods(new features.SupportedMethod().setServiceName('event_store.client.streams.Streams').setMethodName('BatchAppend'));
    methods.addMethods(new features.SupportedMethod().setServiceName('event_store.client.streams.Streams').setMethodName('Append'));
    methods.addMethods(new features.SupportedMethod().setServiceName('event_store.client.streams.Streams').setMethodName('Read'));
    done(null, methods);
  };
}
