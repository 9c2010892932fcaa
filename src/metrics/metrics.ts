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
  help: 'Announcer steps on NATS that failed (NATS away or refusing); the announcements wait in the log and go out later',
  registers: [registry],
});

export const redisPublishFailures = new Counter({
  name: 'redis_publish_failures_total',
  help: 'filters_changed announcements that Redis (REDIS_URL) did not take',
  registers: [registry],
});

/** What the NATS gauges read at each scrape. */
export interface NatsSource {
  state?(): string;
}

let nats: NatsSource | null = null;
let natsGauges = false;

/**
 * The NATS gauges exist only in processes that use NATS, so a missing series never reads as "down".
 * Returns a function that stops watching `watched`.
 */
export function watchNats(watched: NatsSource): () => void {
  const state = watched.state?.();
  if (state === undefined || state === 'in-process' || state === 'off') return () => {};
  nats = watched;
  if (!natsGauges) {
    natsGauges = true;
    new Gauge({
      name: 'nats_connected',
      help: '1 while the NATS connection is up, 0 while it is away (the client keeps reconnecting) or closed',
      registers: [registry],
      collect() {
        if (nats) this.set(nats.state?.() === 'connected' ? 1 : 0);
      },
    });
  }
  return () => {
    if (nats === watched) nats = null;
  };
}
