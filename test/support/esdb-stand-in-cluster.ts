import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Metadata } from '@grpc/grpc-js';
import type * as GossipPb from '@eventstore/db-client/generated/gossip_pb.js';
import type * as Shared from '@eventstore/db-client/generated/shared_pb.js';
import type { Route } from './esdb-stand-in-appends.ts';
import { StandInLog } from './esdb-stand-in-log.ts';
import { standInTls, type Tls } from './esdb-stand-in-security.ts';
import { EsdbStandIn, type AppendCall } from './esdb-stand-in.ts';

const require = createRequire(import.meta.url);
const gossip = require('@eventstore/db-client/generated/gossip_pb.js') as typeof GossipPb;
const shared = require('@eventstore/db-client/generated/shared_pb.js') as typeof Shared;
const { VNodeState } = gossip.MemberInfo;

/**
 * A three-node EventStoreDB cluster of protocol STAND-INS (not servers), rule by rule from EventStore/EventStore
 * v24.10.0 (src/EventStore.Core/...):
 * - the nodes share one log (what a quorum has committed); a write is in it once the leader took it;
 * - Gossip.Read answers each node's view of the members, state and liveness (Services/Transport/Grpc/Gossip.Read.cs),
 *   from which the client picks a node by its nodePreference;
 * - a follower forwards a write to the leader unless it requires the leader, when it answers NotLeader with
 *   the leader's endpoint (Services/VNode/ClusterVNodeController.cs 819-828, 885-895); a read that requires
 *   the leader is NotLeader on a follower and not ready where no leader is known (679-689); other reads are
 *   served from the node's own copy, which lags by `lag(...)` records;
 * - a node cut off from its peers (`isolate`) is Unknown: writes are not ready (155-159), reads served from
 *   what it had (143-144, 205-207);
 * - when the leader stops or is cut off the others elect the one with the most of the log; the new leader
 *   starts with an empty cache of recent ids (IndexWriter._committedEvents lives in memory, IndexWriter.cs
 *   109-110), and the last `unindexed` records the old leader wrote are not yet indexed on it: a repeat of an
 *   append among them is dropped (IndexWriter.cs 229-230, 273-274; StorageWriterService.cs 684-688) until
 *   `indexed()`.
 */
export interface StandInNode {
  standIn: EsdbStandIn;
  readonly instanceId: string;
  state: 'Leader' | 'Follower' | 'Unknown';
  stopped: boolean;
  /** Cut off from its peers: it keeps what it had (`frozenAt` records) and sees no leader. */
  isolated: boolean;
  frozenAt: number;
  /** Records a follower is behind the leader. */
  behind: number;
}

/** How a leader is replaced: the records it has not indexed yet (see `elect`), and how long the election takes. */
export interface Election {
  readonly unindexed?: number;
  readonly electionMs?: number;
}

export class EsdbStandInCluster {
  readonly log = new StandInLog();
  readonly nodes: StandInNode[] = [];
  /** Records of the log from this one on are not yet indexed on the current leader. */
  private indexedBefore = Number.POSITIVE_INFINITY;
  private readonly timers = new Set<NodeJS.Timeout>();

  private appendCall: AppendCall = 'BatchAppend';
  /** A secure cluster's one certificate (TLS and users on every node, esdb-stand-in-security.ts). */
  tls: Tls | null = null;

  static async start({ appendCall = 'BatchAppend', size = 3, secure = false }: { appendCall?: AppendCall; size?: number; secure?: boolean } = {}) {
    const cluster = new EsdbStandInCluster();
    cluster.appendCall = appendCall;
    cluster.tls = secure ? standInTls() : null;
    for (let i = 0; i < size; i += 1) {
      const node = { instanceId: randomUUID(), state: i === 0 ? 'Leader' : 'Follower', stopped: false, isolated: false, frozenAt: 0, behind: 0 } as StandInNode;
      node.standIn = await cluster.serve(node);
      cluster.nodes.push(node);
    }
    return cluster;
  }

  /** The node's stand-in, on a fresh port or (coming back after a stop) on its own. */
  private async serve(node: StandInNode, port?: number): Promise<EsdbStandIn> {
    const part = {
      route: (metadata: Metadata, call: 'read' | 'write') => this.route(node, metadata, call),
      holds: () => this.holds(node),
      gossip: () => this.gossip(node),
    };
    const standIn = await EsdbStandIn.start({ appendCall: this.appendCall, log: this.log, cluster: part, ...(this.tls ? { tls: this.tls } : {}), port });
    standIn.gate.drops = (stream, expected, proposed) => this.drops(stream, expected, proposed);
    return standIn;
  }

  /** A node stopped (the leader: replaced at once), as a container stopped. */
  stop(node: StandInNode): void {
    if (node === this.leader) return void this.stopLeader();
    node.stopped = true;
    node.standIn.kill();
  }

  /** Every stopped node started again on its own port, as a follower (or the leader, when there is none). */
  async restartStopped(): Promise<void> {
    for (const node of this.nodes.filter((n) => n.stopped)) {
      node.standIn = await this.serve(node, Number(node.standIn.endpoint.split(':')[1]));
      node.stopped = false;
      node.state = 'Follower';
      node.behind = 0;
    }
    if (!this.leader) this.elect();
  }

  get leader(): StandInNode | null {
    return this.nodes.find((n) => n.state === 'Leader' && !n.stopped && !n.isolated) ?? null;
  }

  get followers(): StandInNode[] {
    return this.nodes.filter((n) => n.state === 'Follower' && !n.stopped);
  }

  /** Gossip seeds, as `esdb://a,b,c` (the client asks each in turn) or, with `discover`, one seed as `esdb+discover://`. */
  url({ nodePreference = 'leader', discover = false } = {}): string {
    const hosts = discover ? this.nodes[0]!.standIn.endpoint : this.nodes.map((n) => n.standIn.endpoint).join(',');
    return `${discover ? 'esdb+discover' : 'esdb'}://${hosts}?tls=false&nodePreference=${nodePreference}&discoveryInterval=50&gossipTimeout=2`;
  }

  /** A follower's copy `records` behind the log (0: caught up). */
  lag(node: StandInNode, records: number): void {
    node.behind = records;
  }

  /**
   * The leader killed: its connections drop, the others elect a new one, at once or after `electionMs`
   * (a 24.10 cluster notices a dead leader after GossipTimeoutMs, 2,500, and elects within
   * LeaderElectionTimeoutMs, 1,000: ClusterVNodeOptions.cs 312, 331); meanwhile there is no leader.
   */
  stopLeader(options: Election = {}): StandInNode {
    const old = this.leader!;
    old.stopped = true;
    old.standIn.kill();
    this.electIn(options);
    return old;
  }

  /** A node cut off from its peers, still reachable from clients; a leader cut off is replaced. */
  isolate(node: StandInNode, options: Election = {}): void {
    node.frozenAt = this.holds(node);
    node.isolated = true;
    const wasLeader = node.state === 'Leader';
    node.state = 'Unknown';
    if (wasLeader) this.electIn(options);
  }

  private electIn({ unindexed, electionMs = 0 }: Election): void {
    if (electionMs <= 0) return void this.elect({ unindexed });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.elect({ unindexed });
    }, electionMs);
    this.timers.add(timer);
  }

  /** Back with its peers: a follower of the leader there is, caught up. */
  heal(node: StandInNode): void {
    node.isolated = false;
    node.behind = 0;
    node.state = this.leader ? 'Follower' : 'Leader';
  }

  /**
   * A new leader among the nodes that can reach each other: the one holding most of the log; its cache of
   * recent ids starts empty. With `unindexed`, it has not indexed the log's last `unindexed` records, nor any
   * that reach it from the old leader later, until `indexed()`.
   */
  elect({ unindexed }: { unindexed?: number } = {}): StandInNode | null {
    const candidates = this.nodes.filter((n) => !n.stopped && !n.isolated);
    if (candidates.length * 2 <= this.nodes.length) return null;
    const chosen = candidates.reduce((best, n) => (this.holds(n) > this.holds(best) ? n : best));
    for (const n of candidates) {
      n.state = n === chosen ? 'Leader' : 'Follower';
      n.behind = 0;
    }
    this.log.forgetCommittedIds();
    this.indexedBefore = unindexed === undefined ? Number.POSITIVE_INFINITY : this.log.events.length - unindexed;
    return chosen;
  }

  /** The new leader has indexed everything it holds: repeats are answered again. */
  indexed(): void {
    this.indexedBefore = Number.POSITIVE_INFINITY;
  }

  async shutdown(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(this.nodes.filter((n) => !n.stopped).map((n) => n.standIn.stop()));
  }

  private holds(node: StandInNode): number {
    if (node.isolated) return node.frozenAt;
    return Math.max(0, this.log.events.length - (node.state === 'Leader' ? 0 : node.behind));
  }

  private route(node: StandInNode, metadata: Metadata, call: 'read' | 'write'): Route {
    const requiresLeader = metadata.get('requires-leader')[0] === 'true';
    if (node.state === 'Leader') return 'serve';
    if (call === 'read' && !requiresLeader) return 'serve';
    const leader = node.isolated ? null : this.leader;
    if (!leader) return 'not_ready';
    if (!requiresLeader) return 'serve';
    const [host, port] = leader.standIn.endpoint.split(':');
    return { leader: { host: host!, port: Number(port) } };
  }

  /** A repeat of an append whose original sits among the records the new leader has not indexed yet. */
  private drops(stream: string, expected: Parameters<StandInLog['append']>[1], proposed: Parameters<StandInLog['append']>[2]): boolean {
    if (!Number.isFinite(this.indexedBefore)) return false;
    const repeat = this.log.repeatOf(stream, expected, proposed);
    if (!repeat?.ok) return false;
    const firstUnindexed = this.log.events[this.indexedBefore];
    return firstUnindexed === undefined || repeat.position >= firstUnindexed.prepare;
  }

  /** What `node` tells Gossip.Read: itself as it is, its peers as it sees them (none, when cut off). */
  private gossip(node: StandInNode): GossipPb.ClusterInfo {
    const info = new gossip.ClusterInfo();
    for (const member of this.nodes) {
      const [host, port] = member.standIn.endpoint.split(':');
      const seen = member === node || (!node.isolated && !member.isolated && !member.stopped);
      const state = member.state === 'Leader' ? VNodeState.LEADER : member.state === 'Follower' ? VNodeState.FOLLOWER : VNodeState.UNKNOWN;
      info.addMembers(
        new gossip.MemberInfo()
          .setInstanceId(new shared.UUID().setString(member.instanceId))
          .setTimeStamp(String(BigInt(Date.now()) * 10_000n))
          .setState(state)
          .setIsAlive(seen)
          .setHttpEndPoint(new gossip.EndPoint().setAddress(host!).setPort(Number(port))),
      );
    }
    return info;
  }
}
