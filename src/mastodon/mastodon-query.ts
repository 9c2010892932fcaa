import type pg from 'pg';
import { sharedStoreUnavailable } from '../shared/store-unavailable.ts';
import { translatePostgresError } from './postgres-errors.ts';

/** What a 503 names when Mastodon's database does not answer. */
const STORE = "Mastodon's database";

/**
 * One query on Mastodon's database; a failure of it (PostgreSQL away, a connection cut, a refused login)
 * is a store that cannot be reached, answered 503 like the service's own stores, never a 500.
 */
export async function mastodonQuery<Row extends pg.QueryResultRow>(pool: Pick<pg.Pool, 'query'>, text: string, values: unknown[]): Promise<Row[]> {
  try {
    return (await pool.query<Row>(text, values)).rows;
  } catch (error) {
    throw translatePostgresError(error, `${STORE} cannot be queried`, sharedStoreUnavailable(STORE), 'all');
  }
}
