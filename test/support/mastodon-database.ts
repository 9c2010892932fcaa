import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** This project's machines run PostgreSQL here, user `postgres`, trust (README "Tests"). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/**
 * The part of Mastodon's schema Mastodon mode reads and writes, column for column as mastodon/mastodon's
 * db/schema.rb (ActiveRecord::Schema[8.0], version 2025_12_17) declares it, foreign keys included
 * (fk names and ON DELETE as there). `timestamp_id` ids are plain bigints here: Mastodon's function is
 * a PL/pgSQL snowflake generator of its own, and the tests choose their ids.
 */
const SCHEMA = `
CREATE TABLE accounts (
  id bigint PRIMARY KEY,
  username character varying DEFAULT '' NOT NULL,
  domain character varying,
  private_key text,
  public_key text DEFAULT '' NOT NULL,
  created_at timestamp NOT NULL,
  updated_at timestamp NOT NULL,
  note text DEFAULT '' NOT NULL,
  display_name character varying DEFAULT '' NOT NULL,
  uri character varying DEFAULT '' NOT NULL,
  url character varying,
  locked boolean DEFAULT false NOT NULL,
  memorial boolean DEFAULT false NOT NULL,
  moved_to_account_id bigint,
  silenced_at timestamp,
  suspended_at timestamp,
  suspension_origin integer,
  indexable boolean DEFAULT false NOT NULL
);
CREATE UNIQUE INDEX index_accounts_on_username_and_domain_lower ON accounts (lower((username)::text), COALESCE(lower((domain)::text), ''::text));
ALTER TABLE accounts ADD FOREIGN KEY (moved_to_account_id) REFERENCES accounts(id) ON DELETE SET NULL;

CREATE TABLE oauth_applications (
  id bigserial PRIMARY KEY,
  name character varying NOT NULL,
  uid character varying NOT NULL,
  secret character varying NOT NULL,
  redirect_uri text NOT NULL,
  scopes character varying DEFAULT '' NOT NULL,
  created_at timestamp,
  updated_at timestamp,
  superapp boolean DEFAULT false NOT NULL,
  website character varying,
  owner_type character varying,
  owner_id bigint,
  confidential boolean DEFAULT true NOT NULL
);
CREATE UNIQUE INDEX index_oauth_applications_on_uid ON oauth_applications (uid);

CREATE TABLE users (
  id bigserial PRIMARY KEY,
  email character varying DEFAULT '' NOT NULL,
  created_at timestamp NOT NULL,
  updated_at timestamp NOT NULL,
  encrypted_password character varying DEFAULT '' NOT NULL,
  confirmed_at timestamp,
  account_id bigint NOT NULL,
  disabled boolean DEFAULT false NOT NULL,
  approved boolean DEFAULT true NOT NULL,
  chosen_languages character varying[],
  created_by_application_id bigint,
  role_id bigint
);
CREATE UNIQUE INDEX index_users_on_email ON users (email);
CREATE INDEX index_users_on_account_id ON users (account_id);
ALTER TABLE users ADD CONSTRAINT fk_50500f500d FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE;
ALTER TABLE users ADD FOREIGN KEY (created_by_application_id) REFERENCES oauth_applications(id) ON DELETE SET NULL;
ALTER TABLE oauth_applications ADD CONSTRAINT fk_b0988c7c0a FOREIGN KEY (owner_id) REFERENCES users(id) ON DELETE CASCADE;

CREATE TABLE oauth_access_tokens (
  id bigserial PRIMARY KEY,
  token character varying NOT NULL,
  refresh_token character varying,
  expires_in integer,
  revoked_at timestamp,
  created_at timestamp NOT NULL,
  scopes character varying,
  application_id bigint,
  resource_owner_id bigint,
  last_used_at timestamp,
  last_used_ip inet
);
CREATE UNIQUE INDEX index_oauth_access_tokens_on_token ON oauth_access_tokens (token);
CREATE INDEX index_oauth_access_tokens_on_resource_owner_id ON oauth_access_tokens (resource_owner_id) WHERE resource_owner_id IS NOT NULL;
ALTER TABLE oauth_access_tokens ADD CONSTRAINT fk_f5fc4c1ee3 FOREIGN KEY (application_id) REFERENCES oauth_applications(id) ON DELETE CASCADE;
ALTER TABLE oauth_access_tokens ADD CONSTRAINT fk_e84df68546 FOREIGN KEY (resource_owner_id) REFERENCES users(id) ON DELETE CASCADE;

CREATE TABLE statuses (
  id bigint PRIMARY KEY,
  uri character varying,
  text text DEFAULT '' NOT NULL,
  created_at timestamp NOT NULL,
  updated_at timestamp NOT NULL,
  visibility integer DEFAULT 0 NOT NULL,
  account_id bigint NOT NULL,
  deleted_at timestamp
);
ALTER TABLE statuses ADD CONSTRAINT fk_9bda1543f7 FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE;

CREATE TABLE custom_filters (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL,
  expires_at timestamp,
  phrase text DEFAULT '' NOT NULL,
  context character varying[] DEFAULT '{}' NOT NULL,
  created_at timestamp NOT NULL,
  updated_at timestamp NOT NULL,
  action integer DEFAULT 0 NOT NULL
);
CREATE INDEX index_custom_filters_on_account_id ON custom_filters (account_id);
ALTER TABLE custom_filters ADD FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE;

CREATE TABLE custom_filter_keywords (
  id bigserial PRIMARY KEY,
  custom_filter_id bigint NOT NULL,
  keyword text DEFAULT '' NOT NULL,
  whole_word boolean DEFAULT true NOT NULL,
  created_at timestamp(6) NOT NULL,
  updated_at timestamp(6) NOT NULL
);
CREATE INDEX index_custom_filter_keywords_on_custom_filter_id ON custom_filter_keywords (custom_filter_id);
ALTER TABLE custom_filter_keywords ADD FOREIGN KEY (custom_filter_id) REFERENCES custom_filters(id) ON DELETE CASCADE;

CREATE TABLE custom_filter_statuses (
  id bigserial PRIMARY KEY,
  custom_filter_id bigint NOT NULL,
  status_id bigint NOT NULL,
  created_at timestamp(6) NOT NULL,
  updated_at timestamp(6) NOT NULL
);
CREATE INDEX index_custom_filter_statuses_on_custom_filter_id ON custom_filter_statuses (custom_filter_id);
CREATE UNIQUE INDEX index_custom_filter_statuses_on_status_id_and_custom_filter_id ON custom_filter_statuses (status_id, custom_filter_id);
ALTER TABLE custom_filter_statuses ADD FOREIGN KEY (custom_filter_id) REFERENCES custom_filters(id) ON DELETE CASCADE;
ALTER TABLE custom_filter_statuses ADD FOREIGN KEY (status_id) REFERENCES statuses(id) ON DELETE CASCADE;
`;

let ids = BigInt(Date.now()) << 16n;
/** Mastodon-sized ids (its timestamp_id snowflakes are this big), fresh per call. */
export const snowflake = (): string => (++ids).toString();

export interface MastodonUser {
  readonly accountId: string;
  readonly userId: string;
  readonly username: string;
}

/** A database of its own for one test file, with Mastodon's tables; `drop()` removes it. */
export class MastodonTestDatabase {
  private constructor(
    readonly url: string,
    readonly name: string,
    readonly pool: pg.Pool,
    private readonly adminUrl: string,
  ) {}

  /** On the shared server by default; `adminUrl` names another (a test's own cluster, test/support/own-postgres.ts). */
  static async create(adminUrl = POSTGRES_ADMIN_URL): Promise<MastodonTestDatabase> {
    const name = `mastodon_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
    // Connections cut by cutOff() report here; the next query takes a new one.
    pool.on('error', () => {});
    await pool.query(SCHEMA);
    return new MastodonTestDatabase(url.toString(), name, pool, adminUrl);
  }

  /** A local account with its user, as Mastodon's sign-up makes them (confirmed and approved unless told). */
  async user(fields: { confirmed?: boolean; approved?: boolean; disabled?: boolean } = {}): Promise<MastodonUser> {
    const accountId = snowflake();
    const username = `u${accountId.slice(-9)}`;
    await this.pool.query(`INSERT INTO accounts (id, username, created_at, updated_at) VALUES ($1, $2, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')`, [
      accountId,
      username,
    ]);
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO users (email, created_at, updated_at, account_id, confirmed_at, approved, disabled)
       VALUES ($1, now(), now(), $2, CASE WHEN $3 THEN now() AT TIME ZONE 'UTC' END, $4, $5) RETURNING id::text`,
      [`${username}@example.test`, accountId, fields.confirmed ?? true, fields.approved ?? true, fields.disabled ?? false],
    );
    return { accountId, userId: rows[0]!.id, username };
  }

  /** A row of oauth_access_tokens as Doorkeeper writes one (the token in clear, scopes space-separated); returns the token. */
  async token(user: MastodonUser | null, scopes = 'read write', fields: { expiresIn?: number; createdSecondsAgo?: number } = {}): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.pool.query(
      `INSERT INTO oauth_access_tokens (token, scopes, resource_owner_id, expires_in, created_at)
       VALUES ($1, $2, $3, $4, (now() AT TIME ZONE 'UTC') - make_interval(secs => $5))`,
      [token, scopes, user?.userId ?? null, fields.expiresIn ?? null, fields.createdSecondsAgo ?? 0],
    );
    return token;
  }

  /**
   * Takes the database away as an outage would, for this database alone (the PostgreSQL server is
   * shared): new connections are refused and every open one is cut. `restore()` lets them in again.
   */
  async cutOff(): Promise<void> {
    await this.admin(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS false`);
    await this.admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${this.name}' AND pid <> pg_backend_pid()`);
  }

  async restore(): Promise<void> {
    await this.admin(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS true`);
  }

  private async admin(sql: string): Promise<void> {
    const admin = new pg.Client({ connectionString: this.adminUrl });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  }

  async drop(): Promise<void> {
    await this.pool.end();
    const admin = new pg.Client({ connectionString: this.adminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
