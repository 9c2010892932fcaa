import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics, served at GET /metrics by the HTTP API and the projector process.
 * One registry per process: every metric is defined once, here.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, matched route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request (writes include the wait for the read models)',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const eventsAppended = new Counter({
  name: 'events_appended_total',
  help: 'Events this process appended to the event log, by event type',
  labelNames: ['type'] as const,
  registers: [registry],
});

export const natsPublishFailures = new Counter({
  name: 'nats_publish_failures_total',
  help: 'filters_changed announcements that could not be published',
  registers: [registry],
});

/** What the projection gauges read at each scrape; set by whoever runs or serves the read models. */
export interface ProjectionSource {
  checkpoint(): Promise<bigint | null>;
  /** When the oldest event not yet projected was recorded; null when the read models are caught up. */
  oldestPending(): Promise<Date | null>;
  isLeader(): boolean;
}

let source: ProjectionSource | null = null;

export function watchProjection(watched: ProjectionSource | null): void {
  source = watched;
}

new Gauge({
  name: 'projector_position',
  help: 'Global log position the filters read models have reached (-1 before the first event)',
  registers: [registry],
  async collect() {
    if (source) this.set(Number((await source.checkpoint()) ?? -1n));
  },
});

new Gauge({
  name: 'projector_lag_seconds',
  help: 'Age of the oldest event the filters read models have not yet taken in (0 when caught up)',
  registers: [registry],
  async collect() {
    if (!source) return;
    const oldest = await source.oldestPending();
    this.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
  },
});

new Gauge({
  name: 'projector_leader',
  help: '1 while this process holds the projector lease and projects',
  registers: [registry],
  collect() {
    this.set(source?.isLeader() ? 1 : 0);
  },
});
