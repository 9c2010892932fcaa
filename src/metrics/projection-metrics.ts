import { Counter, Gauge } from 'prom-client';
import { registry } from './metrics.ts';

export const projectorStepFailures = new Counter({
  name: 'projector_step_failures_total',
  help: 'Projection steps that failed in this process, by stage (read: the event log; apply: the read models)',
  labelNames: ['stage'] as const,
  registers: [registry],
});

export const projectorParkedEvents = new Counter({
  name: 'projector_parked_events_total',
  help: 'Events this process gave up projecting after bounded retries and parked (see `projections parked`)',
  registers: [registry],
});

export const projectorFencedWrites = new Counter({
  name: 'projector_fenced_writes_total',
  help: 'Writes of this process a successor lease holder fenced off (refused by its larger fencing token); the projector stopped each time',
  registers: [registry],
});

export const readYourWritesTimeouts = new Counter({
  name: 'read_your_writes_timeouts_total',
  help: 'Writes answered before the read models had taken them in (the wait for them timed out)',
  registers: [registry],
});

/** What the projection and store gauges show at a scrape; null where it could not be found out. */
export interface ProjectionSnapshot {
  readonly checkpoint: bigint | null;
  readonly lagSeconds: number | null;
  readonly leader: boolean;
  readonly failing: boolean;
  readonly eventStoreUp: boolean;
  readonly readStoreUp: boolean;
}

/** Read once per scrape by all the gauges below (concurrent calls share one probe). */
export interface ProjectionSource {
  snapshot(): Promise<ProjectionSnapshot>;
}

let source: ProjectionSource | null = null;

/** The gauges read `watched` from now on; the function returned stops that, unless another source came since. */
export function watchProjection(watched: ProjectionSource): () => void {
  source = watched;
  return () => {
    if (source === watched) source = null;
  };
}

/** NaN when the value could not be found out: a scrape still answers while a store is down. */
const setFromSnapshot = (gauge: Gauge, value: number | null) => gauge.set(value ?? Number.NaN);

new Gauge({
  name: 'projector_position',
  help: 'Global log position the filters read models have reached (-1 before the first event; NaN when the read store cannot be reached)',
  registers: [registry],
  async collect() {
    if (!source) return;
    const { checkpoint, readStoreUp } = await source.snapshot();
    setFromSnapshot(this, readStoreUp ? Number(checkpoint ?? -1n) : null);
  },
});

new Gauge({
  name: 'projector_lag_seconds',
  help: 'Age of the oldest event the filters read models have not yet taken in (0 when caught up; NaN when a store cannot be reached)',
  registers: [registry],
  async collect() {
    if (source) setFromSnapshot(this, (await source.snapshot()).lagSeconds);
  },
});

new Gauge({
  name: 'projector_leader',
  help: '1 while this process holds the projector lease and projects',
  registers: [registry],
  async collect() {
    this.set(source && (await source.snapshot()).leader ? 1 : 0);
  },
});

new Gauge({
  name: 'projector_failing',
  help: '1 while the projection step of this process keeps failing (see /health for the position and error)',
  registers: [registry],
  async collect() {
    this.set(source && (await source.snapshot()).failing ? 1 : 0);
  },
});

new Gauge({
  name: 'store_up',
  help: '1 when the store answered the last probe, 0 when it could not be reached (store: events or read_models)',
  labelNames: ['store'] as const,
  registers: [registry],
  async collect() {
    if (!source) return;
    const snapshot = await source.snapshot();
    this.set({ store: 'events' }, snapshot.eventStoreUp ? 1 : 0);
    this.set({ store: 'read_models' }, snapshot.readStoreUp ? 1 : 0);
  },
});

/** What a projector reports, counted here (it matches the projector's ProjectionObserver). */
export const projectionMetrics = {
  stepFailed: (stage: 'read' | 'apply') => projectorStepFailures.inc({ stage }),
  eventsParked: (count: number) => projectorParkedEvents.inc(count),
};
