import { Counter, Gauge } from 'prom-client';
import type { HealthReport } from '../health/service-health.ts';
import type { AnnouncerObserver } from '../projections/announcer/announcer.ts';
import { natsPublishFailures, registry } from './metrics.ts';

export const announcementsPublished = new Counter({
  name: 'announcements_published_total',
  help: 'filters_changed announcements the transport confirmed, by channel (nats, redis)',
  labelNames: ['channel'] as const,
  registers: [registry],
});

export const announcementsRepublished = new Counter({
  name: 'announcements_republished_total',
  help: 'Announcements published again after a crash that JetStream already had (same message id) and dropped',
  labelNames: ['channel'] as const,
  registers: [registry],
});

export const announcementFailures = new Counter({
  name: 'announcement_failures_total',
  help: 'Announcer steps that failed (transport away or refusing, a store unreachable); the announcements wait in the log',
  labelNames: ['channel'] as const,
  registers: [registry],
});

/** What the announcers report, counted here. */
export const announcerMetrics: AnnouncerObserver = {
  published: (channel, outcome) => (outcome === 'duplicate' ? announcementsRepublished : announcementsPublished).inc({ channel }),
  failed: (channel) => {
    announcementFailures.inc({ channel });
    if (channel === 'nats') natsPublishFailures.inc();
  },
};

interface ReportSource {
  report(): Promise<HealthReport>;
}

let source: ReportSource | null = null;

/** The announcement gauges read `watched` (one health probe per scrape); returns a function that stops it. */
export function watchAnnouncements(watched: ReportSource): () => void {
  source = watched;
  return () => {
    if (source === watched) source = null;
  };
}

const perChannel = (name: string, help: string, pick: (a: HealthReport['announcements'][number]) => number | null) =>
  new Gauge({
    name,
    help,
    labelNames: ['channel'] as const,
    registers: [registry],
    async collect() {
      if (!source) return;
      this.reset();
      for (const announcement of (await source.report()).announcements) this.set({ channel: announcement.channel }, pick(announcement) ?? Number.NaN);
    },
  });

perChannel('announcements_waiting_commits', 'Commits not yet announced on the channel (counted up to 1000)', (a) => a.waitingCommits);
perChannel('announcements_lag_seconds', 'Age of the oldest event not yet announced on the channel (0 when none waits)', (a) => a.lagSeconds);
perChannel('announcement_transport_up', '1 while the channel (nats, redis) is connected, else 0', (a) =>
  ['connected', 'in-process'].includes(a.state) ? 1 : 0,
);
perChannel('nats_stream_messages', 'Messages in the JetStream stream that keeps timeline.* (NaN without JetStream)', (a) =>
  typeof a.streamMessages === 'number' ? a.streamMessages : null,
);

new Gauge({
  name: 'nats_jetstream',
  help: '1 while announcements go through the JetStream stream, 0 on core NATS (a server without JetStream) or before NATS was reached',
  registers: [registry],
  async collect() {
    if (!source) return;
    const nats = (await source.report()).announcements.find((a) => a.channel === 'nats');
    if (nats) this.set(nats.delivery === 'jetstream' ? 1 : 0);
  },
});
