import { Counter, Gauge, Histogram } from 'prom-client';
import { VERSION } from '../shared/version.ts';
import { registry } from './metrics.ts';

/** What operators chart beside the HTTP series: the build, filter matching and webmail logins. */
const buildInfo = new Gauge({
  name: 'content_filters_build_info',
  help: 'Always 1; the labels say which version runs on which Node',
  labelNames: ['version', 'node'] as const,
  registers: [registry],
});
buildInfo.set({ version: VERSION, node: process.version }, 1);

export type MatchTransport = 'http' | 'nats';
export type MatchOutcome = 'ok' | 'bad_request' | 'error';

const matchRequests = new Counter({
  name: 'filter_match_requests_total',
  help: 'Filter-matching requests answered, by transport (http, nats) and outcome (ok, bad_request, error)',
  labelNames: ['transport', 'outcome'] as const,
  registers: [registry],
});

const matchStatuses = new Counter({
  name: 'filter_match_statuses_total',
  help: 'Statuses matched against filters, by transport',
  labelNames: ['transport'] as const,
  registers: [registry],
});

const matchDuration = new Histogram({
  name: 'filter_match_duration_seconds',
  help: 'Time to answer a filter-matching request, by transport',
  labelNames: ['transport'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

/** Records one matching request: its outcome, how many statuses it carried, how long it took. */
export function recordMatch(transport: MatchTransport, outcome: MatchOutcome, statuses: number, startedAt: bigint): void {
  matchRequests.inc({ transport, outcome });
  if (statuses > 0) matchStatuses.inc({ transport }, statuses);
  matchDuration.observe({ transport }, Number(process.hrtime.bigint() - startedAt) / 1e9);
}

export type LoginOutcome = 'success' | 'failed' | 'invalid_request' | 'rate_limited';

const webmailLogins = new Counter({
  name: 'webmail_logins_total',
  help: 'Webmail login attempts by outcome: success, failed (wrong password or user), invalid_request (request token), rate_limited',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const countLogin = (outcome: LoginOutcome): void => webmailLogins.inc({ outcome });
