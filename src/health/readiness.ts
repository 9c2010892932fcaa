import type { HealthProblem, HealthReport } from './service-health.ts';

/**
 * Which problems make a process unready (GET /health/ready): only those of a store it serves requests
 * from. A projector that stalls or lags is no reason to take API processes out of a load balancer: reads
 * still answer from the read models and writes answer correctly from the event stream itself (they wait
 * for the read models at most 5 s), and taking every replica out would turn a slow projector into an outage.
 */
const STORE_REASON = /^(event_store|read_store|accounts?_store|account_store|mastodon_database)_/;

export interface Readiness {
  readonly status: 'ready' | 'unavailable';
  /** What stops this process from serving now. */
  readonly problems: readonly HealthProblem[];
  /** Reported by /health, but no reason to stop sending this process requests. */
  readonly degraded: readonly HealthProblem[];
}

export function readiness(report: HealthReport): Readiness {
  const problems = report.problems.filter((problem) => STORE_REASON.test(problem.reason));
  const degraded = report.problems.filter((problem) => !STORE_REASON.test(problem.reason));
  return { status: problems.length === 0 ? 'ready' : 'unavailable', problems, degraded };
}
