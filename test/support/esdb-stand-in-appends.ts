import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Metadata, status, type sendUnaryData, type ServerDuplexStream, type ServerReadableStream, type ServerUnaryCall } from '@grpc/grpc-js';
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

/**
 * What the node answers a write with instead of taking it: a node that is starting, catching up or
 * electing a leader is not ready, one whose queues are full is too busy (ClientMessage.NotHandled).
 * `hold` keeps writes that reached the storage writer waiting until `release()`, so a deadline and the
 * prepare/commit timeout can pass; they are made then all the same.
 */
export interface WriteGate {
  refuse: 'not_ready' | 'busy' | null;
  held: Array<() => void> | null;
  /**
   * PrepareTimeoutMs/CommitTimeoutMs, 2_000 by default (src/EventStore.Core/Configuration/ClusterVNodeOptions.cs
   * 396-402 at v24.10.0): after it the request manager answers Prepare/CommitTimeout without withdrawing the
   * write (Services/RequestManager/Managers/RequestManagerBase.cs 155-162), and the storage writer, which
   * checks cancellation only as a write enters it, makes the write anyway.
   */
  writeTimeoutMs?: number;
  /** Held writes answered with the prepare/commit timeout so far, so a test can wait for one. */
  timeouts?: number;
  /** A secure node's access check (esdb-stand-in-security.ts): the error to answer with, or null. */
  check?: (metadata: Metadata, stream: string) => Error | null;
  /** A cluster node's part (esdb-stand-in-cluster.ts): take the write, refuse it not ready, or name the leader. */
  route?: (metadata: Metadata) => Route;
  /** A cluster node's rule for a repeat whose original it has not indexed yet: dropped, no answer (IdempotentNotReady). */
  drops?: (stream: string, expected: Expected, proposed: readonly ProposedEvent[]) => boolean;
}

/** Where a cluster node sends a call: served here, refused as not ready, or NotLeader naming the leader. */
export type Route = 'serve' | 'not_ready' | { readonly leader: { readonly host: string; readonly port: number } };

/**
 * RpcExceptions.LeaderInfo (v24.10.0 src/EventStore.Core/Services/Transport/Grpc/RpcExceptions.cs 26-31):
 * NOT_FOUND "Leader info available" with the leader's host and port in the trailers, which the client
 * raises as NotLeaderError and reconnects to (EventStore-Client-NodeJS packages/db-client/src/Client/index.ts).
 */
export function notLeader(leader: { host: string; port: number }) {
  const metadata = new Metadata();
  metadata.set('exception', 'not-leader');
  metadata.set('leader-endpoint-host', leader.host);
  metadata.set('leader-endpoint-port', String(leader.port));
  return Object.assign(new Error('Leader info available'), { code: status.NOT_FOUND, details: 'Leader info available', metadata });
}

/**
 * A repeat dropped by the storage writer (StorageWriterService.cs 684-688, v24.10.0: "just drop the write and
 * wait for the client to retry") is never answered by it; the request manager's prepare timeout answers.
 */
function dropped(gate: WriteGate, stream: string, expected: Expected, proposed: readonly ProposedEvent[], timedOut: () => void): boolean {
  if (!gate.drops?.(stream, expected, proposed)) return false;
  setTimeout(() => {
    gate.timeouts = (gate.timeouts ?? 0) + 1;
    timedOut();
  }, gate.writeTimeoutMs ?? WRITE_TIMEOUT_MS);
  return true;
}

/** ServerNotReady / ServerBusy of src/EventStore.Core/Services/Transport/Grpc/RpcExceptions.cs (v24.10.0). */
const NOT_HANDLED_MESSAGE = { not_ready: 'Server Is Not Ready', busy: 'Server Is Too Busy' } as const;
/** Streams.BatchAppend.cs (v24.10.0) words the same refusals a little differently. */
const BATCH_NOT_HANDLED_MESSAGE = { not_ready: 'Server Is Not Ready', busy: 'Server Is Busy' } as const;

export const WRITE_TIMEOUT_MS = 2_000;

/**
 * Runs `write` now, or when the gate is released if writes are held; a held write is answered `timedOut`
 * once the prepare/commit timeout passes, and is still made on release (its answer then goes nowhere).
 */
function through(gate: WriteGate, write: (answered: boolean) => void, timedOut?: () => void): void {
  if (!gate.held) return write(false);
  let answered = false;
  const timer = timedOut
    ? setTimeout(() => {
        answered = true;
        gate.timeouts = (gate.timeouts ?? 0) + 1;
        timedOut();
      }, gate.writeTimeoutMs ?? WRITE_TIMEOUT_MS)
    : null;
  gate.held.push(() => {
    if (timer) clearTimeout(timer);
    write(answered);
  });
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
export function append(log: StandInLog, served: Served, gate: WriteGate) {
  return (call: ServerReadableStream<Streams.AppendReq, Streams.AppendResp>, done: sendUnaryData<Streams.AppendResp>): void => {
    served.Append += 1;
    let options: Streams.AppendReq.Options | null = null;
    const proposed: ProposedEvent[] = [];
    let size = 0;
    /** Answered already: past its deadline, or too large. */
    let late = false;
    call.on('data', (req: Streams.AppendReq) => {
      // The call's deadline is the gRPC one: a server stops a call whose deadline has passed.
      if (!late && Date.now() > Number(call.getDeadline())) {
        late = true;
        done({ code: status.DEADLINE_EXCEEDED, details: 'Deadline Exceeded' });
      }
      if (req.hasOptions()) options = req.getOptions()!;
      const message = req.getProposedMessage();
      if (!message || late) return;
      const event = toProposed(message);
      proposed.push(event);
      size += appendSize([event]);
      // Streams.Append.cs 74-78: the size is checked after each event as it arrives, and the call ends there.
      const denied = options && gate.check?.(call.metadata, streamNameOf(options.getStreamIdentifier()));
      if (size > MAX_APPEND_SIZE && !denied) {
        late = true;
        done(appendTooLarge());
      }
    });
    call.on('end', () => {
      if (late) return;
      const given = options;
      if (!given) return done({ code: status.INVALID_ARGUMENT, details: 'the first AppendReq must carry the options' });
      const denied = gate.check?.(call.metadata, streamNameOf(given.getStreamIdentifier()));
      if (denied) return done(denied);
      if (size > MAX_APPEND_SIZE) return done(appendTooLarge());
      // Streams.Append.cs 106-107: a NotHandled answer becomes RpcExceptions.ServerNotReady()/ServerBusy()
      // (UNAVAILABLE) or, for NotLeader, RpcExceptions.LeaderInfo (RpcExceptions.cs 146-162).
      const route = gate.route?.(call.metadata) ?? 'serve';
      if (route !== 'serve')
        return done(route === 'not_ready' ? { code: status.UNAVAILABLE, details: NOT_HANDLED_MESSAGE.not_ready } : notLeader(route.leader));
      if (gate.refuse) return done({ code: status.UNAVAILABLE, details: NOT_HANDLED_MESSAGE[gate.refuse] });
      const expected: Expected = given.hasRevision()
        ? { kind: 'revision', revision: BigInt(given.getRevision()) }
        : { kind: given.hasNoStream() ? 'no_stream' : given.hasStreamExists() ? 'stream_exists' : 'any' };
      const timedOut = () => done({ code: status.ABORTED, details: 'Operation timed out: Commit phase timeout.' });
      if (dropped(gate, streamNameOf(given.getStreamIdentifier()), expected, proposed, timedOut)) return;
      // The write is published now (Streams.Append.cs 89-100); a Prepare/CommitTimeout is answered as
      // RpcExceptions.Timeout, ABORTED "Operation timed out: ..." (RpcExceptions.cs 15; Streams.Append.cs 140-143),
      // and a call the client has given up on (its deadline) no longer hears anything; the write goes on.
      through(
        gate,
        (answered) => {
          const outcome = log.append(streamNameOf(given.getStreamIdentifier()), expected, proposed);
          if (answered || call.cancelled) return;
          const response = new pb.AppendResp();
          if (outcome.ok) {
            // The last event's position; commit and prepare are equal (see esdb-stand-in-log.ts).
            const at = outcome.position.toString();
            const position = new pb.AppendResp.Position().setCommitPosition(at).setPreparePosition(at);
            return done(null, response.setSuccess(new pb.AppendResp.Success().setCurrentRevision(outcome.revision.toString()).setPosition(position)));
          }
          if (outcome.reason === 'stream_deleted') return done(streamDeleted(streamNameOf(given.getStreamIdentifier())));
          // A wrong expected revision is answered inside AppendResp, not with a gRPC error status.
          const wrong = new pb.AppendResp.WrongExpectedVersion();
          if (outcome.current === null) wrong.setCurrentNoStream(new shared.Empty());
          else wrong.setCurrentRevision(outcome.current.toString());
          if (expected.kind === 'revision') wrong.setExpectedRevision(expected.revision.toString());
          else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new shared.Empty());
          else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new shared.Empty());
          else wrong.setExpectedAny(new shared.Empty());
          done(null, response.setWrongExpectedVersion(wrong));
        },
        timedOut,
      );
    });
  };
}

/** RpcExceptions.StreamDeleted: FAILED_PRECONDITION with the exception named in the trailers. */
function streamDeleted(stream: string) {
  const metadata = new Metadata();
  metadata.set('exception', 'stream-deleted');
  metadata.set('stream-name', stream);
  return { code: status.FAILED_PRECONDITION, details: `Event stream '${stream}' is deleted.`, metadata };
}

/**
 * Streams.BatchAppend (bidirectional, one call for many appends): requests carry a correlation id, the
 * options in the first, and the append happens at `is_final`. Errors are a google.rpc.Status in the
 * response, as src/EventStore.Core/Services/Transport/Grpc/Streams.BatchAppend.cs and Status.cs (v24.10.0)
 * build them: WrongExpectedVersion (ALREADY_EXISTS), StreamDeleted (NOT_FOUND), Timeout when the deadline
 * passed (DEADLINE_EXCEEDED), and a NotHandled refusal with no code and an Empty detail, which the client
 * cannot recognise and raises as UnknownError.
 */
export function batchAppend(log: StandInLog, open: Set<{ end(): void }>, served: Served, gate: WriteGate) {
  return (call: ServerDuplexStream<Streams.BatchAppendReq, Streams.BatchAppendResp>): void => {
    open.add(call);
    const pending = new Map<string, { options: Streams.BatchAppendReq.Options; events: ProposedEvent[]; size: number }>();
    call.on('data', (req: Streams.BatchAppendReq) => {
      const id = req.getCorrelationId()?.getString() ?? '';
      // As the server: a chunk whose write is not pending (refused as too large) is ignored.
      if (!pending.has(id) && !req.hasOptions()) return;
      // Streams.BatchAppend.cs: a write whose deadline has already passed when its options arrive is
      // answered Timeout at once, and its further chunks are ignored.
      const first = req.getOptions();
      if (!pending.has(id) && first?.hasDeadline() && first.getDeadline()!.toDate().getTime() < Date.now()) {
        const late = new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(first.getStreamIdentifier());
        return void call.write(late.setError(failure(status.DEADLINE_EXCEEDED, 'Timeout', new shared.Timeout(), 'event_store.client.Timeout')));
      }
      const entry = pending.get(id) ?? { options: req.getOptions()!, events: [], size: 0 };
      pending.set(id, entry);
      const chunk = req.getProposedMessagesList().map(toProposed);
      entry.events.push(...chunk);
      // A running total, as ClientWriteRequest._size (Streams.BatchAppend.cs 350-353): not the whole write again per chunk.
      entry.size += appendSize(chunk);
      if (entry.size > MAX_APPEND_SIZE) {
        pending.delete(id);
        const refusal = new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(entry.options.getStreamIdentifier());
        call.write(refusal.setError(batchAppendTooLarge()));
        return;
      }
      if (!req.getIsFinal()) return;
      pending.delete(id);
      const options = entry.options;
      const response = () => new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(options.getStreamIdentifier());
      const stream = streamNameOf(options.getStreamIdentifier());
      // Streams.BatchAppend.cs 222-235: not ready is a Status with an Empty detail (the client's UnknownError);
      // NotLeader throws RpcExceptions.LeaderInfo, which ends the whole call (writer.TryComplete(ex), 216).
      const route = gate.route?.(call.metadata) ?? 'serve';
      const refuse = route === 'not_ready' ? 'not_ready' : gate.refuse;
      if (typeof route === 'object') {
        open.delete(call);
        return void call.emit('error', notLeader(route.leader));
      }
      if (refuse) return void call.write(response().setError(failure(0, BATCH_NOT_HANDLED_MESSAGE[refuse], new Empty(), 'google.protobuf.Empty')));
      // Status.AccessDenied (Status.cs): PERMISSION_DENIED with an AccessDenied detail.
      if (gate.check?.(call.metadata, stream))
        return void call.write(
          response().setError(failure(status.PERMISSION_DENIED, 'AccessDenied', new shared.AccessDenied(), 'event_store.client.AccessDenied')),
        );
      // Streams.BatchAppend.cs 150, 194-206: the write's own deadline timer answers only while it is pending,
      // before its final chunk; from here the write is published and runs on. The request manager's
      // Prepare/CommitTimeout becomes Status.Timeout (253-256); the write is made all the same.
      const expected: Expected = options.hasStreamPosition()
        ? { kind: 'revision', revision: BigInt(options.getStreamPosition()) }
        : { kind: options.hasNoStream() ? 'no_stream' : options.hasStreamExists() ? 'stream_exists' : 'any' };
      const timedOut = () =>
        void (
          call.cancelled || call.write(response().setError(failure(status.DEADLINE_EXCEEDED, 'Timeout', new shared.Timeout(), 'event_store.client.Timeout')))
        );
      if (dropped(gate, stream, expected, entry.events, timedOut)) return;
      through(
        gate,
        (answered) => {
          const response = new pb.BatchAppendResp().setCorrelationId(req.getCorrelationId()).setStreamIdentifier(options.getStreamIdentifier());
          served.BatchAppend += 1;
          const outcome = log.append(stream, expected, entry.events);
          if (outcome.ok) {
            const at = outcome.position.toString();
            const position = new shared.AllStreamPosition().setCommitPosition(at).setPreparePosition(at);
            response.setSuccess(new pb.BatchAppendResp.Success().setCurrentRevision(outcome.revision.toString()).setPosition(position));
          } else if (outcome.reason === 'stream_deleted') {
            const deleted = new shared.StreamDeleted().setStreamIdentifier(options.getStreamIdentifier());
            response.setError(failure(status.NOT_FOUND, 'StreamDeleted', deleted, 'event_store.client.StreamDeleted'));
          } else {
            const wrong = new shared.WrongExpectedVersion();
            if (outcome.current === null) wrong.setCurrentNoStream(new Empty());
            else wrong.setCurrentStreamRevision(outcome.current.toString());
            if (expected.kind === 'revision') wrong.setExpectedStreamPosition(expected.revision.toString());
            else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new Empty());
            else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
            else wrong.setExpectedAny(new Empty());
            response.setError(failure(ALREADY_EXISTS, 'WrongExpectedVersion', wrong, 'event_store.client.WrongExpectedVersion'));
          }
          if (!answered && !call.cancelled) call.write(response);
        },
        timedOut,
      );
    });
    call.on('end', () => {
      open.delete(call);
      call.end();
    });
  };
}

function failure(code: number, message: string, detail: { serializeBinary(): Uint8Array }, typeName: string): Rpc.Status {
  const details = new Any();
  details.pack(detail.serializeBinary(), typeName);
  return new rpc.Status().setCode(code).setMessage(message).setDetails(details);
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
