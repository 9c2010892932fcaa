import pg from 'pg';
/** Mastodon's PostgreSQL could not be used as MASTODON_DATABASE_URL says: the process cannot start. */
export class MastodonDatabaseError extends Error {
  override readonly name = 'MastodonDatabaseError';
}

/** The tables Mastodon mode reads (db/schema.rb): tokens, their users and the users' accounts. */
const REQUIRED_TABLES = ['oauth_access_tokens', 'users', 'accounts'] as const;

const where = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'MASTODON_DATABASE_URL';
  }
};

/**
 * A pool on Mastodon's database, checked before the service starts: it must answer and hold Mastodon's
 * tables, or the start fails with one line saying which. Afterwards a lost connection is only an error
 * of the requests that needed it (the pool reconnects), never the end of the process.
 */
export async function openMastodonDatabase(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', () => {});
  try {
    const { rows } = await pool.query<{ name: string; present: boolean }>(
      'SELECT name, to_regclass(name) IS NOT NULL AS present FROM unnest($1::text[]) AS name',
      [REQUIRED_TABLES],
    );
    const missing = rows.filter((row) => !row.present).map((row) => row.name);
    if (missing.length > 0) throw new MastodonDatabaseError(`MASTODON_DATABASE_URL (${where(url)}) is not a Mastodon database: no ${missing.join(', ')} table`);
    return pool;
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof MastodonDatabaseError) throw error;
    throw new MastodonDatabaseError(`MASTODON_DATABASE_URL (${where(url)}) cannot be used: ${(error as Error).message}`, { cause: error });
  }
}
