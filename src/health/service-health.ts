import type { AccountStore } from '../accounts/account-store.ts';
import type { EventStore } from '../events/event-store.ts';
import type { ProjectionSnapshot, ProjectionSource } from '../metrics/projection-metrics.ts';
import type { Notifier, NotifierState } from '../notifications/notifier.ts';
import type { AnnouncedPositions } from '../projections/stores/announced-positions.ts';
import { FILTERS_PROJECTION } from '../projections/runtime/filter-projector.ts';
import { FILTERS_LEASE, type LeasedProjector } from '../projections/runtime/leased-projector.ts';
import type { StaleWrites } from '../projections/runtime/stale-writes.ts';
import type { ReadStore } from '../projections/stores/read-store.ts';
import type { LeaseHolder, Leases } from '../shared/leases.ts';
import { MASTODON_PROJECTION } from '../projections/mastodon/mastodon-filter-rows.ts';
import { announcementReports, isDegraded, type AnnouncementReport } from './announcement-health.ts';

/** Each reason /health can give for answering 503, with what an operator needs to act on it. */
export type HealthProblem =
  | { readonly reason: 'event_store_unreachable'; readonly error: string }
  /** Reads work but appends fail: a full or read-only disk, I/O errors, a write lock held elsewhere. */
  | { readonly reason: 'event_store_unwritable'; readonly error: string }
  | { readonly reason: 'event_store_access_denied'; readonly error: string; readonly detail: string }
  | { readonly reason: 'read_store_unreachable'; readonly error: string }
  | { readonly reason: 'account_store_unreachable'; readonly error: string }
  /** Mastodon mode: its PostgreSQL, where every request's token is looked up. */
  | { readonly reason: 'mastodon_database_unreachable'; readonly error: string }
  | {
      readonly reason: 'projection_failing';
      readonly stage: string;
      readonly position: string | null;
      readonly error: string;
      readonly failures: number;
      readonly since: string;
    }
  /** Mastodon mode: its filter tables do not take the log's commits (its database away, a refused row). */
  | {
      readonly reason: 'mastodon_projection_failing';
      readonly stage: string;
      readonly position: string | null;
      readonly error: string;
      readonly failures: number;
      readonly since: string;
    }
  | { readonly reason: 'mastodon_projection_lagging'; readonly lagSeconds: number; readonly maxLagSeconds: number }
  | { readonly reason: 'projector_stalled'; readonly detail: string }
  | { readonly reason: 'projector_lagging'; readonly lagSeconds: number; readonly maxLagSeconds: number }
  | { readonly reason: 'write_not_visible'; readonly position: string; readonly answeredAt: string };

export interface HealthReport {
  /** `degraded` (still 200): a transport for announcements is away; they wait in the log meanwhile. */
  readonly status: 'ok' | 'degraded' | 'unavailable';
  readonly problems: readonly HealthProblem[];
  readonly eventStore: 'up' | 'down';
  readonly readStore: 'up' | 'down';
  /** In processes that authenticate requests (not the projector): accounts and tokens. */
  readonly accountStore?: 'up' | 'down';
  /** Mastodon mode: whether Mastodon's PostgreSQL (accounts and tokens) answers. */
  readonly mastodonDatabase?: 'up' | 'down';
  readonly nats: NotifierState;
  /** Each transport (NATS, Redis) with its state and what waits to be announced on it. */
  readonly announcements: readonly AnnouncementReport[];
  readonly projection: {
    readonly checkpoint: string | null;
    readonly lagSeconds: number | null;
    readonly leaseHolder: string | null;
    readonly parkedEvents: number | null;
    /** Where the last parked commit ended in the log: what `projections parked` and `events` show more of. */
    readonly lastParkedPosition: string | null;
  };
  /**
   * Mastodon mode: where Mastodon's filter tables stand in the log (null while its database does not
   * answer) and how old the oldest commit they lack is (0: they hold everything).
   */
  readonly mastodonProjection?: { readonly checkpoint: string | null; readonly lagSeconds: number | null };
  /** Present in processes that run a projector. */
  readonly leader?: boolean;
  readonly owner?: string;
  /** Writes this process answered before the read models had them (the wait timed out), since it started. */
  readonly staleWrites: number;
}

export interface HealthDeps {
  readonly events: EventStore;
  readonly reads: ReadStore & Pick<Leases, 'leaseHolder'> & AnnouncedPositions;
  readonly notifier: Notifier;
  /** Accounts and tokens, in processes that authenticate requests: every API request needs them. */
  readonly accounts?: Pick<AccountStore, 'findAccount'>;
  /** `mastodon`: the accounts are Mastodon's database, and the report names it. */
  readonly accountsAre?: 'mastodon';
  /** Mastodon mode: its filter tables, a read model of their own. */
  readonly mastodonTables?: { checkpoint(projection: string): Promise<bigint | null> };
  readonly projector: LeasedProjector | null;
  readonly staleWrites: StaleWrites;
  /** The oldest event not yet projected may be this old before /health says `projector_lagging`. */
  readonly maxLagMs: number;
  /** A store that has not answered a probe within this is taken as unreachable. */
  readonly probeTimeoutMs?: number;
  readonly now?: () => number;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: string; accessDenied?: boolean };

function settle<T>(promise: Promise<T>, timeoutMs: number): Promise<Settled<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    promise.then(
      (value) => resolve({ ok: true, value }),
      (error: unknown) =>
        resolve({
          ok: false,
          error: error instanceof Error ? error.message : String(error),
          accessDenied: (error as { reason?: unknown } | null)?.reason === 'access_denied',
        }),
    );
    void promise.finally(() => clearTimeout(timer)).catch(() => {});
  });
}

/**
 * What /health and the projection gauges report, probed on demand: each store is asked one small
 * question (with a time limit), and the projection is judged from the shared checkpoint, the lease and
 * this process's projector. Concurrent callers share one probe, so a scrape costs one probe in all.
 */
export class ServiceHealth implements ProjectionSource {
  private inFlight: Promise<HealthReport> | null = null;
  private readonly now: () => number;

  constructor(private readonly deps: HealthDeps) {
    this.now = deps.now ?? Date.now;
  }

  report(): Promise<HealthReport> {
    this.inFlight ??= this.probe().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  async snapshot(): Promise<ProjectionSnapshot> {
    const report = await this.report();
    return {
      checkpoint: report.projection.checkpoint === null ? null : BigInt(report.projection.checkpoint),
      lagSeconds: report.projection.lagSeconds,
      leader: report.leader ?? false,
      failing: report.problems.some((p) => p.reason === 'projection_failing'),
      eventStoreUp: report.eventStore === 'up',
      readStoreUp: report.readStore === 'up',
    };
  }

  private async probe(): Promise<HealthReport> {
    const { events, reads, projector, staleWrites } = this.deps;
    const timeout = this.deps.probeTimeoutMs ?? 2000;
    const accounts = this.deps.accounts;
    // Asked alongside the stores, not after them: cut off from everything, /health still answers within one probe time-out or so.
    const announcing = announcementReports(this.deps.notifier, projector?.announcers ?? [], reads, events, timeout);
    const tables = this.deps.mastodonTables;
    const [checkpoint, lease, parked, writes, accountStore, mastodonCheckpoint] = await Promise.all([
      settle(reads.checkpoint(FILTERS_PROJECTION), timeout),
      settle(reads.leaseHolder(FILTERS_LEASE), timeout),
      settle(reads.parkedEvents(FILTERS_PROJECTION), timeout),
      settle(events.writeProblem?.() ?? Promise.resolve(null), timeout),
      // One indexed look-up of an id no account has: proves the store answers, costs next to nothing.
      accounts ? settle(accounts.findAccount('0'), timeout) : null,
      tables ? settle(tables.checkpoint(MASTODON_PROJECTION), timeout) : null,
    ]);
    const mastodonLag = mastodonCheckpoint?.ok ? await this.lagAfter(mastodonCheckpoint.value, timeout) : null;
    // The first event not yet projected: proves the event store answers and gives the lag.
    const after = checkpoint.ok ? checkpoint.value : null;
    // A read that outlives the probe is cancelled, so probes cannot pile reads up on a slow store.
    const next = await settle(events.readAll({ after, limit: 1, signal: AbortSignal.timeout(timeout) }), timeout);
    const now = this.now();
    const pending = next.ok && checkpoint.ok ? (next.value[0] ?? null) : undefined;
    const lagSeconds = pending === undefined ? null : pending === null ? 0 : Math.max(0, now - Date.parse(pending.recordedAt)) / 1000;

    const problems: HealthProblem[] = [];
    if (!next.ok && next.accessDenied) {
      const detail =
        "the event store refuses this service's credentials: it needs a user allowed to read $all and write the filter streams (on EventStoreDB an $admins member; see docs/production.md)";
      problems.push({ reason: 'event_store_access_denied', error: next.error, detail });
    } else if (!next.ok) problems.push({ reason: 'event_store_unreachable', error: next.error });
    const unwritable = writes.ok ? writes.value : writes.error;
    if (next.ok && unwritable !== null) problems.push({ reason: 'event_store_unwritable', error: unwritable });
    if (!checkpoint.ok) problems.push({ reason: 'read_store_unreachable', error: checkpoint.error });
    const mastodon = this.deps.accountsAre === 'mastodon';
    if (accountStore && !accountStore.ok)
      problems.push({ reason: mastodon ? 'mastodon_database_unreachable' : 'account_store_unreachable', error: accountStore.error });
    const failure = projector?.failure;
    if (failure) problems.push({ reason: 'projection_failing', ...failure });
    const tablesFailure = projector?.mastodonProjection?.failure;
    if (tablesFailure) problems.push({ reason: 'mastodon_projection_failing', ...tablesFailure });
    if (mastodonLag !== null && mastodonLag * 1000 > this.deps.maxLagMs)
      problems.push({ reason: 'mastodon_projection_lagging', lagSeconds: Math.round(mastodonLag * 10) / 10, maxLagSeconds: this.deps.maxLagMs / 1000 });
    if (lease.ok && !live(lease.value, now))
      problems.push({ reason: 'projector_stalled', detail: 'no projector holds the lease: nothing takes new events into the read models' });
    if (lagSeconds !== null && lagSeconds * 1000 > this.deps.maxLagMs) {
      problems.push({ reason: 'projector_lagging', lagSeconds: Math.round(lagSeconds * 10) / 10, maxLagSeconds: this.deps.maxLagMs / 1000 });
    }
    const stale = checkpoint.ok ? staleWrites.outstanding(checkpoint.value) : null;
    if (stale) problems.push({ reason: 'write_not_visible', ...stale });
    const announcements = await announcing;

    return {
      status: problems.length > 0 ? 'unavailable' : announcements.some(isDegraded) ? 'degraded' : 'ok',
      problems,
      eventStore: next.ok && unwritable === null ? 'up' : 'down',
      readStore: checkpoint.ok ? 'up' : 'down',
      ...(accountStore ? { accountStore: accountStore.ok ? ('up' as const) : ('down' as const) } : {}),
      ...(accountStore && mastodon ? { mastodonDatabase: accountStore.ok ? ('up' as const) : ('down' as const) } : {}),
      nats: this.deps.notifier.state?.() ?? 'off',
      announcements,
      projection: {
        checkpoint: checkpoint.ok ? (checkpoint.value?.toString() ?? null) : null,
        lagSeconds,
        leaseHolder: lease.ok && live(lease.value, now) ? lease.value!.owner : null,
        parkedEvents: parked.ok ? parked.value.length : null,
        lastParkedPosition: parked.ok ? lastPosition(parked.value) : null,
      },
      ...(mastodonCheckpoint
        ? { mastodonProjection: { checkpoint: mastodonCheckpoint.ok ? (mastodonCheckpoint.value?.toString() ?? null) : null, lagSeconds: mastodonLag } }
        : {}),
      ...(projector ? { leader: projector.isLeader, owner: projector.owner } : {}),
      staleWrites: staleWrites.total,
    };
  }

  /** Seconds since the first event after `position` was recorded (0: none); null when the log does not answer. */
  private async lagAfter(position: bigint | null, timeout: number): Promise<number | null> {
    const next = await settle(this.deps.events.readAll({ after: position, limit: 1, signal: AbortSignal.timeout(timeout) }), timeout);
    if (!next.ok) return null;
    const first = next.value[0];
    return first ? Math.max(0, this.now() - Date.parse(first.recordedAt)) / 1000 : 0;
  }
}

const lastPosition = (parked: readonly { readonly position: bigint }[]): string | null =>
  parked.reduce<bigint | null>((last, { position }) => (last === null || position > last ? position : last), null)?.toString() ?? null;

/** By the store's clock where it gave one: a skewed clock here must not call a live lease dead, or a dead one live. */
const live = (holder: LeaseHolder | null, now: number): boolean => holder !== null && holder.expiresAt > (holder.storeTime ?? now);
