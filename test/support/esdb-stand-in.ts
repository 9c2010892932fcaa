import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Server, ServerCredentials, status, type ServerWritableStream } from '@grpc/grpc-js';
import type * as StreamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as FeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import { append, batchAppend, supportedMethods, type Served } from './esdb-stand-in-appends.ts';
import { atOrAfter, StandInLog, type LogPosition, type StoredEvent } from './esdb-stand-in-log.ts';

// The service definitions and messages @eventstore/db-client itself speaks, generated from EventStoreDB's
// .proto files (the package ships the generated code, not the .proto files).
const require = createRequire(import.meta.url);
const { StreamsService } = require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof StreamsGrpc;
const { ServerFeaturesService } = require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof FeaturesGrpc;
const pb = require('@eventstore/db-client/generated/streams_pb.js') as typeof Streams;
const shared = require('@eventstore/db-client/generated/shared_pb.js') as typeof Shared;

type ReadOptions = Streams.ReadReq.Options;

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const streamNameOf = (id: Shared.StreamIdentifier | undefined) => text(id?.getStreamName_asU8() ?? new Uint8Array());

function toReadResp(event: StoredEvent): Streams.ReadResp {
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
function filterOf(options: ReadOptions): (event: StoredEvent) => boolean {
  if (!options.hasFilter()) return () => true;
  const filter = options.getFilter()!;
  const expression = filter.hasStreamIdentifier() ? filter.getStreamIdentifier()! : filter.getEventType()!;
  const field = (event: StoredEvent) => (filter.hasStreamIdentifier() ? event.stream : event.type);
  const prefixes = expression.getPrefixList();
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  return (event) => (prefixes.length === 0 || prefixes.some((p) => field(event).startsWith(p))) && (!regex || regex.test(field(event)));
}

/** Which append call the client is led to use: a 21.10+ server advertises BatchAppend, older ones do not. */
export type AppendCall = 'BatchAppend' | 'Append';

/**
 * An EventStoreDB gRPC protocol STAND-IN, not a server: it answers only the calls the EventStoreDB adapter
 * makes (Streams.BatchAppend or Streams.Append with an expected revision, Streams.Read of a stream, of
 * $all forwards, and the filtered $all subscription), from one in-memory log with EventStoreDB's position
 * rules (see esdb-stand-in-log.ts). With `Append`, ServerFeatures is not served (UNIMPLEMENTED), as by a
 * server before 21.10, and the client falls back to Append. Anything else is UNIMPLEMENTED. Nothing is
 * stored on disk; there is no cluster, no TLS, no authentication.
 */
export class EsdbStandIn {
  readonly log = new StandInLog();
  /** Appends served per call, so a test can tell which path the client took. */
  readonly served: Served = { Append: 0, BatchAppend: 0 };
  private readonly server = new Server();
  private readonly calls = new Set<{ end(): void }>();
  private port = 0;

  static async start(appendCall: AppendCall = 'BatchAppend'): Promise<EsdbStandIn> {
    const standIn = new EsdbStandIn();
    standIn.server.addService(StreamsService, {
      append: append(standIn.log, standIn.served),
      batchAppend: batchAppend(standIn.log, standIn.calls, standIn.served),
      read: (call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>) => standIn.read(call),
    });
    if (appendCall === 'BatchAppend') standIn.server.addService(ServerFeaturesService, { getSupportedMethods: supportedMethods('24.10.0-stand-in') });
    standIn.port = await new Promise<number>((resolve, reject) =>
      standIn.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
    return standIn;
  }

  /** A connection string for @eventstore/db-client, as for an insecure single-node server. */
  get url(): string {
    return `esdb://127.0.0.1:${this.port}?tls=false`;
  }

  async stop(): Promise<void> {
    for (const call of this.calls) call.end();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }

  private read(call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>): void {
    const options = call.request.getOptions();
    if (!options || options.getReadDirection() !== pb.ReadReq.Options.ReadDirection.FORWARDS) {
      call.destroy(Object.assign(new Error('the stand-in reads forwards only'), { code: status.UNIMPLEMENTED }));
      return;
    }
    if (options.hasSubscription()) return this.subscribe(call, options);
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    let events: StoredEvent[];
    if (options.hasStream()) {
      const stream = options.getStream()!;
      const name = streamNameOf(stream.getStreamIdentifier());
      if (this.log.head(name) === null) {
        call.write(new pb.ReadResp().setStreamNotFound(new pb.ReadResp.StreamNotFound().setStreamIdentifier(stream.getStreamIdentifier())));
        return void call.end();
      }
      const from = stream.hasRevision() ? BigInt(stream.getRevision()) : stream.hasEnd() ? (this.log.head(name) ?? 0n) + 1n : 0n;
      events = this.log.events.filter((e) => e.stream === name && e.revision >= from);
    } else {
      // A read of $all starts at the position it is given, inclusively, as EventStoreDB's does.
      const from = allStart(options);
      const keep = filterOf(options);
      events = this.log.events.filter((e) => from !== 'end' && (from === 'start' || atOrAfter(e, from)) && keep(e));
    }
    for (const event of events.slice(0, count)) call.write(toReadResp(event));
    call.end();
  }

  /** Confirms, sends what is already there after the start (exclusively), says it caught up, then goes live. */
  private subscribe(call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>, options: ReadOptions): void {
    if (!options.hasAll()) {
      call.destroy(Object.assign(new Error('the stand-in subscribes to $all only'), { code: status.UNIMPLEMENTED }));
      return;
    }
    const keep = filterOf(options);
    const from = allStart(options);
    call.write(new pb.ReadResp().setConfirmation(new pb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())));
    for (const event of this.log.events) {
      const due = from === 'start' || (from !== 'end' && atOrAfter(event, from) && !isAt(event, from));
      if (due && keep(event)) call.write(toReadResp(event));
    }
    call.write(new pb.ReadResp().setCaughtUp(new pb.ReadResp.CaughtUp()));
    const stop = this.log.watch((appended) => {
      for (const event of appended) if (keep(event)) call.write(toReadResp(event));
    });
    this.calls.add(call);
    call.on('cancelled', () => {
      stop();
      this.calls.delete(call);
    });
  }
}

const isAt = (event: StoredEvent, at: LogPosition) => event.commit === at.commit && event.prepare === at.prepare;

function allStart(options: ReadOptions): LogPosition | 'start' | 'end' {
  const all = options.getAll();
  if (all?.hasEnd()) return 'end';
  const position = all?.getPosition();
  return position ? { commit: BigInt(position.getCommitPosition()), prepare: BigInt(position.getPreparePosition()) } : 'start';
}
