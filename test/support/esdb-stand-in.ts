import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Server, ServerCredentials, status, type Metadata, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';
import type * as StreamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as FeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as Streams from '@eventstore/db-client/generated/streams_pb.js';
import type * as GossipGrpc from '@eventstore/db-client/generated/gossip_grpc_pb.js';
import type * as GossipPb from '@eventstore/db-client/generated/gossip_pb.js';
import { append, batchAppend, notLeader, supportedMethods, type Route, type Served, type WriteGate } from './esdb-stand-in-appends.ts';
import { StandInLog, type StoredEvent } from './esdb-stand-in-log.ts';
import { checkAccess, STAND_IN_USERS, standInTls, type Tls } from './esdb-stand-in-security.ts';
import { allStart, checkpointAt, failure, filterOf, streamDeleted, streamNameOf, toReadResp, type ReadOptions } from './esdb-stand-in-messages.ts';

// The service definitions and messages @eventstore/db-client itself speaks, generated from EventStoreDB's
// .proto files (the package ships the generated code, not the .proto files).
const require = createRequire(import.meta.url);
const { StreamsService } = require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof StreamsGrpc;
const { ServerFeaturesService } = require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof FeaturesGrpc;
const pb = require('@eventstore/db-client/generated/streams_pb.js') as typeof Streams;
const { GossipService } = require('@eventstore/db-client/generated/gossip_grpc_pb.js') as typeof GossipGrpc;

/**
 * A node's part in a cluster (esdb-stand-in-cluster.ts): where its calls go, how much of the shared log it
 * holds, and its members' view for Gossip.Read.
 */
export interface ClusterPart {
  route(metadata: Metadata, call: 'read' | 'write'): Route;
  /** Records of the shared log this node has: all of them on the leader, fewer on a lagging or cut-off node. */
  holds(): number;
  gossip(): GossipPb.ClusterInfo;
}

/** Which append call the client is led to use: a 21.10+ server advertises BatchAppend, older ones do not. */
export type AppendCall = 'BatchAppend' | 'Append';

export interface StandInOptions {
  readonly appendCall?: AppendCall;
  /**
   * Traffic a real $all carries besides this project's: with system projections running, every event is
   * followed by link events in `$ce-<category>` and `$et-<type>` and, now and then, a projection checkpoint
   * (src/EventStore.Projections.Core/Standard/ByCategory.cs, ByEventType.cs at v24.10.0); written after
   * the append they follow, as the projections subsystem does.
   */
  readonly systemProjections?: boolean;
  /** TLS and users, as a secure node (esdb-stand-in-security.ts); insecure, as `--insecure`, otherwise. */
  readonly secure?: boolean;
  /** A cluster member: the log it shares with the other nodes, and its part (esdb-stand-in-cluster.ts). */
  readonly log?: StandInLog;
  readonly cluster?: ClusterPart;
  /** The cluster's one certificate (a secure cluster), and a node's port when it comes back after a stop. */
  readonly tls?: Tls;
  readonly port?: number;
}

/** Records the stand-in sends per read or subscription page before it yields to the event loop. */
const PAGE = 256;
/** Events per projection checkpoint the system projections write. */
const PROJECTION_CHECKPOINT_EVERY = 64;

/**
 * An EventStoreDB gRPC protocol STAND-IN, not a server: it answers the calls the EventStoreDB adapter and
 * the client's own tests make (Streams.BatchAppend and Streams.Append with an expected revision,
 * Streams.Read of a stream, of $all forwards and backwards, filtered $all subscriptions with checkpoints)
 * from one in-memory log with EventStoreDB's rules (esdb-stand-in-log.ts), refusing writes the way a node
 * that is not ready or too busy does (`gate`). With `Append`, ServerFeatures is not served (UNIMPLEMENTED),
 * as by a server before 21.10, and the client falls back to Append. Anything else is UNIMPLEMENTED. Nothing
 * is stored on disk; there is no cluster and no TLS.
 */
export class EsdbStandIn {
  readonly log: StandInLog;
  /** Appends served per call, so a test can tell which path the client took. */
  readonly served: Served = { Append: 0, BatchAppend: 0 };
  /** Records sent to readers of $all (reads and subscriptions): what re-reading a tail costs. */
  recordsSent = 0;
  /** Reads of $all and subscriptions still open, so a test can see a cancelled read end. */
  readonly openReads = new Set<ServerWritableStream<Streams.ReadReq, Streams.ReadResp>>();
  readonly gate: WriteGate = { refuse: null, held: null };
  private readonly server = new Server();
  private readonly calls = new Set<{ end(): void }>();
  private port = 0;
  private tls: Tls | null = null;
  private projected = 0;
  private cluster: ClusterPart | null = null;

  private constructor(log?: StandInLog) {
    this.log = log ?? new StandInLog();
  }

  static async start(options: StandInOptions | AppendCall = {}): Promise<EsdbStandIn> {
    const given = typeof options === 'string' ? { appendCall: options } : options;
    const { appendCall = 'BatchAppend', systemProjections = false, secure = false } = given;
    const standIn = new EsdbStandIn(given.log);
    if (given.cluster) {
      standIn.cluster = given.cluster;
      standIn.gate.route = (metadata) => given.cluster!.route(metadata, 'write');
      standIn.server.addService(GossipService, { read: (_call: unknown, done: sendUnaryData<GossipPb.ClusterInfo>) => done(null, given.cluster!.gossip()) });
    }
    standIn.tls = given.tls ?? (secure ? standInTls() : null);
    if (standIn.tls) standIn.gate.check = (metadata, stream) => standIn.denied({ metadata }, stream);
    standIn.server.addService(StreamsService, {
      append: append(standIn.log, standIn.served, standIn.gate),
      batchAppend: batchAppend(standIn.log, standIn.calls, standIn.served, standIn.gate),
      read: (call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>) => standIn.read(call),
      tombstone: (call: ServerUnaryCall<Streams.TombstoneReq, Streams.TombstoneResp>, done: sendUnaryData<Streams.TombstoneResp>) =>
        standIn.tombstone(call, done),
    });
    if (appendCall === 'BatchAppend') standIn.server.addService(ServerFeaturesService, { getSupportedMethods: supportedMethods('24.10.0-stand-in') });
    if (systemProjections) standIn.log.watch((appended) => setImmediate(() => standIn.project(appended)));
    standIn.port = await new Promise<number>((resolve, reject) =>
      standIn.server.bindAsync(`127.0.0.1:${given.port ?? 0}`, standIn.tls?.credentials ?? ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    return standIn;
  }

  /** A connection string for @eventstore/db-client: insecure, or over TLS as `user` (see STAND_IN_USERS). */
  get url(): string {
    return this.urlAs('admin');
  }

  urlAs(user: string): string {
    if (!this.tls) return `esdb://127.0.0.1:${this.port}?tls=false`;
    return `esdb://${user}:${STAND_IN_USERS[user]?.password ?? 'wrong'}@127.0.0.1:${this.port}?tls=true&tlsCAFile=${encodeURIComponent(this.tls.caFile)}`;
  }

  /** `host:port` and the CA certificate, for a client made from settings rather than a connection string. */
  get endpoint(): string {
    return `127.0.0.1:${this.port}`;
  }

  get rootCertificate(): Buffer | undefined {
    return this.tls?.root;
  }

  /**
   * Streams.Tombstone (Streams.Delete.cs, v24.10.0): a hard delete, answered with the tombstone's position;
   * a second one is StreamDeleted. The expected revision is not checked here.
   */
  private tombstone(call: ServerUnaryCall<Streams.TombstoneReq, Streams.TombstoneResp>, done: sendUnaryData<Streams.TombstoneResp>): void {
    const name = streamNameOf(call.request.getOptions()?.getStreamIdentifier());
    const denied = this.denied(call, name);
    if (denied) return done(denied);
    if (this.log.isDeleted(name)) return done(streamDeleted(name));
    this.log.tombstone(name);
    const at = this.log.events.at(-1)!.prepare.toString();
    done(null, new pb.TombstoneResp().setPosition(new pb.TombstoneResp.Position().setCommitPosition(at).setPreparePosition(at)));
  }

  /** Null when allowed; else the error to end the call with. Only a secure stand-in checks. */
  private denied(call: { metadata: Metadata }, stream: string): Error | null {
    if (!this.tls) return null;
    const access = checkAccess(call.metadata, stream);
    return access.ok ? null : access.error;
  }

  /**
   * Writes held from now until `release()`, as a storage writer that has taken them but not finished: the
   * client's deadline and the 2 s prepare/commit timeout (`gate.writeTimeoutMs`) keep running, and the
   * writes are made on release all the same (esdb-stand-in-appends.ts).
   */
  holdWrites(): void {
    this.gate.held ??= [];
  }

  release(): void {
    const held = this.gate.held ?? [];
    this.gate.held = null;
    for (const write of held) write();
  }

  /** Another application's events in its own streams, as on a server the project shares. */
  otherApplication(events: number, payload = 200): void {
    const data = Buffer.from(JSON.stringify({ padding: 'x'.repeat(payload) }));
    for (let i = 0; i < events; i += 1) {
      this.log.append(`orders-${i % 97}`, { kind: 'any' }, [
        { id: randomUUID(), type: 'OrderPlaced', contentType: 'application/json', data, customMetadata: new Uint8Array() },
      ]);
    }
  }

  async stop(): Promise<void> {
    for (const call of this.calls) call.end();
    this.release();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }

  /** A node killed: every connection dropped at once, nothing answered; writes it held may still be `release`d into a shared log. */
  kill(): void {
    this.server.forceShutdown();
  }

  /** The records this node serves reads from: a follower's or a cut-off node's copy ends early. */
  private held(): readonly StoredEvent[] {
    const holds = this.cluster?.holds();
    return holds === undefined ? this.log.events : this.log.events.slice(0, holds);
  }

  /** A stream as this node holds it. */
  private heldStream(name: string): readonly StoredEvent[] {
    const events = this.log.stream(name, 0n);
    const holds = this.cluster?.holds();
    if (holds === undefined || holds >= this.log.events.length) return events;
    const end = this.log.events[holds]!.commit;
    return events.filter((e) => e.commit < end);
  }

  /** What $by_category and $by_event_type write after an append: a link per event, a checkpoint now and then. */
  private project(appended: readonly StoredEvent[]): void {
    for (const event of appended) {
      if (event.stream.startsWith('$') || event.type.startsWith('$')) continue;
      const link = () => ({
        id: randomUUID(),
        type: '$>',
        contentType: 'application/octet-stream',
        data: Buffer.from(`${event.revision}@${event.stream}`),
        customMetadata: Buffer.from(JSON.stringify({ $o: event.stream, $causedBy: event.id })),
      });
      const category = event.stream.split('-')[0]!;
      this.log.append(`$ce-${category}`, { kind: 'any' }, [link()]);
      this.log.append(`$et-${event.type}`, { kind: 'any' }, [link()]);
      this.projected += 1;
      if (this.projected % PROJECTION_CHECKPOINT_EVERY === 0) {
        const checkpoint = Buffer.from(JSON.stringify({ $c: event.commit.toString(), $p: event.prepare.toString() }));
        this.log.append('$projections-$by_category-checkpoint', { kind: 'any' }, [
          { id: randomUUID(), type: '$ProjectionCheckpoint', contentType: 'application/json', data: checkpoint, customMetadata: new Uint8Array() },
        ]);
      }
    }
  }

  private read(call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>): void {
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', failure(status.INVALID_ARGUMENT, 'a read needs options'));
    const backwards = options.getReadDirection() === pb.ReadReq.Options.ReadDirection.BACKWARDS;
    const target = options.hasStream() ? streamNameOf(options.getStream()!.getStreamIdentifier()) : '$all';
    const denied = this.denied(call, target);
    if (denied) return void call.emit('error', denied);
    // ClusterVNodeController.cs 205-214, 679-689 (v24.10.0): a read that requires the leader, on a node that
    // is not, is NotLeader when a leader is known and not ready (RpcExceptions.ServerNotReady) when none is.
    const route = this.cluster?.route(call.metadata, 'read') ?? 'serve';
    if (route === 'not_ready') return void call.emit('error', failure(status.UNAVAILABLE, 'Server Is Not Ready'));
    if (route !== 'serve') return void call.emit('error', notLeader(route.leader));
    if (options.hasSubscription()) return this.subscribe(call, options);
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    if (options.hasStream()) {
      const stream = options.getStream()!;
      const name = streamNameOf(stream.getStreamIdentifier());
      if (this.log.isDeleted(name)) return void call.emit('error', streamDeleted(name));
      const held = this.heldStream(name);
      if (held.length === 0) {
        call.write(new pb.ReadResp().setStreamNotFound(new pb.ReadResp.StreamNotFound().setStreamIdentifier(stream.getStreamIdentifier())));
        return void call.end();
      }
      const head = held.at(-1)!.revision;
      const from = stream.hasRevision() ? BigInt(stream.getRevision()) : stream.hasEnd() || backwards ? head : 0n;
      const events = backwards ? held.filter((e) => e.revision <= from).reverse() : held.filter((e) => e.revision >= from);
      return void this.send(call, events.slice(0, count), false);
    }
    // A read of $all starts at the position it is given, inclusively, which must be a record boundary.
    const from = allStart(options);
    const all = this.held();
    const found = from === 'start' ? 0 : from === 'end' ? all.length : this.log.indexAt(from);
    if (found === null) return void call.emit('error', failure(status.INVALID_ARGUMENT, 'Trying to read from an invalid position.'));
    const start = Math.min(found, all.length);
    const keep = filterOf(options);
    const events = backwards ? all.slice(0, from === 'start' ? all.length : start).reverse() : all.slice(start);
    this.openReads.add(call);
    call.on('cancelled', () => this.openReads.delete(call));
    void this.sendAll(call, events, keep, count);
  }

  /** Sends a page, then yields to the event loop, so a cancelled or timed-out read stops being served. */
  private async sendAll(
    call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>,
    events: readonly StoredEvent[],
    keep: (e: StoredEvent) => boolean,
    count: number,
  ) {
    let sent = 0;
    for (let i = 0; i < events.length && sent < count; i += 1) {
      if (i % PAGE === 0 && i > 0) await new Promise((resolve) => setImmediate(resolve));
      if (call.cancelled || !this.openReads.has(call)) return;
      const event = events[i]!;
      if (!keep(event)) continue;
      this.recordsSent += 1;
      sent += 1;
      call.write(toReadResp(event));
    }
    this.openReads.delete(call);
    call.end();
  }

  private send(call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>, events: readonly StoredEvent[], all: boolean): void {
    for (const event of events) call.write(toReadResp(event));
    if (all) this.recordsSent += events.length;
    call.end();
  }

  /**
   * Confirms, sends what is already there after the start (exclusively), says it caught up, then goes live.
   * A filtered subscription reports a checkpoint after every `window × multiplier` records scanned and
   * when it catches up (Enumerators.AllSubscriptionFiltered.cs, v24.10.0), so a subscriber can move its
   * checkpoint over events the filter left out. Live events are pushed after the append has returned.
   */
  private subscribe(call: ServerWritableStream<Streams.ReadReq, Streams.ReadResp>, options: ReadOptions): void {
    if (!options.hasAll()) return void call.emit('error', failure(status.UNIMPLEMENTED, 'the stand-in subscribes to $all only'));
    const keep = filterOf(options);
    const from = allStart(options);
    const start = from === 'start' ? 0 : from === 'end' ? this.log.events.length : this.log.indexAt(from);
    call.write(new pb.ReadResp().setConfirmation(new pb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())));
    if (start === null) return void call.emit('error', failure(status.INVALID_ARGUMENT, 'Trying to read from an invalid position.'));
    const filter = options.hasFilter() ? options.getFilter()! : null;
    const every = filter ? (filter.hasMax() ? filter.getMax() : 32) * Math.max(1, filter.getCheckpointintervalmultiplier()) : Infinity;
    let scanned = 0;
    const offer = (event: StoredEvent) => {
      scanned += 1;
      if (keep(event)) {
        this.recordsSent += 1;
        call.write(toReadResp(event));
      }
      if (filter && scanned % every === 0) call.write(checkpointAt(event.commit));
    };
    const skipFirst = from !== 'start' && from !== 'end';
    for (const event of this.log.events.slice(skipFirst ? start + 1 : start)) offer(event);
    if (filter) call.write(checkpointAt(this.log.events.at(-1)?.commit ?? 0n));
    call.write(new pb.ReadResp().setCaughtUp(new pb.ReadResp.CaughtUp()));
    const stop = this.log.watch((appended) => setImmediate(() => !call.cancelled && appended.forEach(offer)));
    this.calls.add(call);
    call.on('cancelled', () => {
      stop();
      this.calls.delete(call);
    });
  }
}
