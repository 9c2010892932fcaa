import { END, streamNameFilter, type EventStoreDBClient } from '@eventstore/db-client';
import { setTimeout as delay } from 'node:timers/promises';
import { backOffMs, type BackOff } from '../shared/async-retry.ts';
import { ChangeSignal } from '../shared/change-signal.ts';
import { packPosition } from './esdb-position.ts';

/** At most a second: the projector of another process hears of appends again soon after the leader is back. */
const RESUBSCRIBE_BACK_OFF: BackOff = { firstMs: 100, maxMs: 1000 };

/**
 * The EventStoreDB adapter's `onAppend`: one hint per new position, from this process's own appends
 * (`heard`) or, for other processes' appends, from a $all subscription filtered to the project's streams,
 * opened while anyone listens and opened again with growing back-off after the server restarts.
 */
export class EsdbAppendWatch {
  private readonly appended = new ChangeSignal({ start: () => this.startWatching(), stop: () => this.unwatch() });
  private subscription: { unsubscribe(): Promise<void> } | null = null;
  private watching = false;
  private lastHeard = -1n;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly streamPrefixes: readonly string[],
  ) {}

  onAppend(listener: () => void): () => void {
    return this.appended.listen(listener);
  }

  close(): void {
    this.appended.clear();
    this.unwatch();
  }

  private startWatching(): void {
    if (this.watching) return;
    this.watching = true;
    void this.watch();
  }

  /** Another process's appends arrive through a $all subscription filtered to this project's streams. */
  private async watch(): Promise<void> {
    let failures = 0;
    while (this.watching) {
      try {
        const subscription = this.client.subscribeToAll({
          fromPosition: END,
          filter: streamNameFilter({ prefixes: [...this.streamPrefixes] }),
        });
        this.subscription = subscription;
        for await (const resolved of subscription) {
          failures = 0;
          if (resolved.event) this.heard(packPosition(resolved.event.position));
        }
      } catch {
        // The server went away or restarted: subscribe again below, after a pause.
      }
      this.subscription = null;
      if (!this.watching) return;
      // Appends made while disconnected are not missed: the projector re-reads from its checkpoint.
      this.appended.notify();
      await delay(backOffMs(RESUBSCRIBE_BACK_OFF, failures++));
    }
  }

  private unwatch(): void {
    this.watching = false;
    void this.subscription?.unsubscribe().catch(() => {});
    this.subscription = null;
  }

  /** One hint per new position, whether it came from our own append or from the subscription. */
  heard(position: bigint): void {
    if (position <= this.lastHeard) return;
    this.lastHeard = position;
    this.appended.notify();
  }
}
