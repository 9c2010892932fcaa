import { EventStoreDBClient } from '@eventstore/db-client';

/**
 * The EventStoreDB client the adapter speaks through, made afresh from the connection string when the node
 * it is on cannot serve the leader's calls. @eventstore/db-client 6.2.1 leaves a node only on NotLeader,
 * Unavailable or Cancelled (EventStore-Client-NodeJS packages/db-client/src/Client/index.ts, shouldReconnect),
 * but a node cut off from its peers answers BatchAppend "Server Is Not Ready" inside the call's response
 * (EventStore/EventStore v24.10.0 src/EventStore.Core/Services/Transport/Grpc/Streams.BatchAppend.cs 222-235),
 * which the client raises as UnknownError and stays: every write would fail for as long as the partition
 * lasts, although the others have elected a leader. A new client runs discovery again (gossip over the
 * seeds, `nodePreference`), so it reaches that leader.
 *
 * `client` is the current client whatever happens later: the modules that hold it (the append watch, the
 * account index) need not know it was replaced. The old one is disposed, which cancels its calls in flight;
 * an append among them is of unknown outcome and retried as the same append (esdb-unknown-outcome.ts).
 */
export class EsdbLeaderConnection {
  readonly client: EventStoreDBClient;
  private current: EventStoreDBClient;
  private generation = 0;
  /** Clients made so far after the first, so a test (and /metrics, later) can see a move. */
  moves = 0;

  constructor(
    first: EventStoreDBClient,
    private readonly make: (() => EventStoreDBClient) | null = null,
  ) {
    this.current = first;
    const now = () => this.current;
    this.client = new Proxy(first, {
      get(_target, key) {
        const client = now();
        const value: unknown = Reflect.get(client, key);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
      },
    });
  }

  static fromUrl(url: string): EsdbLeaderConnection {
    return new EsdbLeaderConnection(EventStoreDBClient.connectionString(url), () => EventStoreDBClient.connectionString(url));
  }

  /** Which client a call starts on; `moveOn` with it replaces that client only, not one made since. */
  get seen(): number {
    return this.generation;
  }

  /** The client of generation `seen` failed as a node without the leader's part does: rediscover. */
  moveOn(seen: number): void {
    if (seen !== this.generation || !this.make) return;
    const old = this.current;
    this.current = this.make();
    this.generation += 1;
    this.moves += 1;
    void old.dispose().catch(() => {});
  }

  /** Set by close(): a call cancelled from then on was cancelled by it, and is not made again. */
  closed = false;

  async close(): Promise<void> {
    this.closed = true;
    await this.current.dispose();
  }
}
