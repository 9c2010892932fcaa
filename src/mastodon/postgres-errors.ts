import type { UnavailableOf } from '../shared/store-unavailable.ts';

/**
 * SQLSTATE classes that say the server cannot be used now, not that the data is wrong: 08 connection
 * exception, 53 insufficient resources, 57 operator intervention (a shutdown, "cannot connect now"),
 * 58 system error; and a driver error without a SQLSTATE (refused, reset, terminated, timed out).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);

export function isPostgresUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  return true;
}

/** Which failures a caller takes as the store being away: outages only, or every one (see below). */
export type PostgresFailures = 'outages' | 'all';

/**
 * PostgreSQL's one translator (the list in src/shared/store-unavailable.ts): an outage becomes the
 * store's StoreUnavailableError, "<what>: <the driver's message>"; any other error passes as it is.
 * `all` takes every failure as one, where no refusal of data can be meant: a connect that failed
 * (whatever its SQLSTATE: a refused login, a database closed to connections) and the read-only queries
 * of requests on Mastodon's tables (mastodon-query.ts), which are answered 503, never 500.
 */
export function translatePostgresError(error: unknown, what: string, unavailable: UnavailableOf, failures: PostgresFailures = 'outages'): unknown {
  if (failures === 'all' || isPostgresUnavailable(error)) return unavailable(`${what}: ${(error as Error).message}`, error);
  return error;
}
