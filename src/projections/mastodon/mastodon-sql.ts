import type pg from 'pg';
import { translatePostgresError } from '../../mastodon/postgres-errors.ts';
import type { UnavailableOf } from '../../shared/store-unavailable.ts';
import { ReadStoreUnavailableError } from '../stores/read-store.ts';

/**
 * This service's own bookkeeping in Mastodon's database, in a schema of its own so that Mastodon's
 * migrations (and `db:schema:load`, which rewrites `public`) never meet it: where the projection stands
 * (written in the transaction of the rows it covers), each filter's stream revision (so a replayed event
 * changes nothing) and the commits the projection parked.
 */
export const BOOKKEEPING = `
CREATE SCHEMA IF NOT EXISTS content_filters;
CREATE TABLE IF NOT EXISTS content_filters.checkpoints (projection text PRIMARY KEY, position numeric);
CREATE TABLE IF NOT EXISTS content_filters.filter_revisions (
  filter_id bigint PRIMARY KEY, account_id bigint NOT NULL, revision bigint NOT NULL, deleted boolean NOT NULL);
CREATE TABLE IF NOT EXISTS content_filters.parked_events (
  projection text NOT NULL, position numeric NOT NULL, stream_name text NOT NULL, revision numeric NOT NULL,
  type text NOT NULL, error text NOT NULL, parked_at timestamptz NOT NULL, PRIMARY KEY (projection, position));
`;

const WRITTEN = "Mastodon's database cannot be written";
const readModelsUnavailable: UnavailableOf = (message, cause) => new ReadStoreUnavailableError(message, { cause });

/** Mastodon's timestamps are `timestamp without time zone` holding UTC (as Rails writes them). */
export const toUtc = (parameter: string): string => `(${parameter}::timestamptz AT TIME ZONE 'UTC')`;
export const fromUtc = (column: string): string => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Runs `work` in one transaction on a client of the pool. An outage becomes ReadStoreUnavailableError
 * (the projection runner waits for it and never parks a commit for it); a refusal of the data (a foreign
 * key, a constraint) stays itself, so the runner retries and, if it keeps failing, parks the commit.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translatePostgresError(error, WRITTEN, readModelsUnavailable, 'all');
  }
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw translatePostgresError(error, WRITTEN, readModelsUnavailable);
  } finally {
    client.release(broken);
  }
}

/** One statement outside a transaction, its outage translated alike. */
export async function query<Row extends pg.QueryResultRow>(pool: Pick<pg.Pool, 'query'>, text: string, values: unknown[] = []): Promise<Row[]> {
  try {
    return (await pool.query<Row>(text, values)).rows;
  } catch (error) {
    throw translatePostgresError(error, WRITTEN, readModelsUnavailable);
  }
}
