import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { accountsSchema } from '../../src/accounts/sqlite-accounts-schema.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { eventsSchema } from '../../src/events/sqlite-events-schema.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { readModelsSchema } from '../../src/projections/stores/sqlite-read-models-schema.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { latestVersion, SchemaTooNewError } from '../../src/shared/schema-migrations.ts';
import { mailSchema } from '../../src/webmail/mail/sqlite-mail-schema.ts';
import { SqliteMailStore } from '../../src/webmail/mail/sqlite-mail-store.ts';
import { SqliteSessionStore } from '../../src/webmail/sessions/sqlite-session-store.ts';
import { SqliteComposeStore } from '../../src/webmail/sessions/sqlite-compose-store.ts';
import { matchesSessionKey, sessionKey } from '../../src/webmail/sessions/session-key.ts';
import { openSessionDatabase, webmailSessionsSchema } from '../../src/webmail/sessions/sqlite-sessions-schema.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/**
 * Each embedded file as the last build before schema versions wrote it (user_version 0): that build's
 * DDL, copied here on purpose, so later changes to the adapters cannot change what "old" means.
 */
function writeOldFile(path: string, ddl: string, rows: string): void {
  const db = new Database(path);
  db.exec(ddl);
  db.exec(rows);
  db.close();
}

function versionOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('SQLite files written before schema versions', () => {
  it('events.sqlite: upgraded on open, its events read back and appends go on from them', async () => {
    const dir = scratchDir();
    writeOldFile(
      join(dir, 'events.sqlite'),
      `CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
        revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
        recorded_at TEXT NOT NULL, UNIQUE (stream, revision));`,
      `INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at)
       VALUES ('e-1', 'filter-1', 0, 'FilterCreated', '{"title":"old"}', '{"accountId":"7"}', '2026-01-01T00:00:00.000Z');`,
    );
    const store = SqliteEventStore.inDataDir(dir);
    try {
      const [old] = await store.readStream('filter-1');
      assert.deepEqual(
        { type: old?.type, data: old?.data, metadata: old?.metadata, position: old?.position },
        { type: 'FilterCreated', data: { title: 'old' }, metadata: { accountId: '7' }, position: 1n },
      );
      const appended = await store.appendToStream('filter-1', [{ type: 'FilterDeleted', data: {}, metadata: {} }], 0n);
      assert.deepEqual(appended, { nextRevision: 1n, position: 2n });
    } finally {
      await store.close();
    }
    assert.equal(versionOf(join(dir, 'events.sqlite')), latestVersion(eventsSchema));
  });

  it('accounts.sqlite: upgraded on open, its accounts found', async () => {
    const dir = scratchDir();
    writeOldFile(
      join(dir, 'accounts.sqlite'),
      `CREATE TABLE IF NOT EXISTS accounts (
        id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS access_tokens (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), secret_hash BLOB NOT NULL,
        scopes TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);`,
      `INSERT INTO accounts (id, username, created_at) VALUES ('117', 'olduser', '2026-01-01T00:00:00.000Z');`,
    );
    const store = SqliteAccountStore.inDataDir(dir);
    try {
      assert.deepEqual(await store.findAccount('OldUser'), { id: '117', username: 'olduser', createdAt: '2026-01-01T00:00:00.000Z' });
    } finally {
      await store.close();
    }
    assert.equal(versionOf(join(dir, 'accounts.sqlite')), latestVersion(accountsSchema));
  });

  it('read-models.sqlite: upgraded on open, records re-keyed by filter, its checkpoint, pointer and v1 records kept', async () => {
    const dir = scratchDir();
    const [accountId, filterId, keywordId] = [newId(), newId(), newId()];
    const record = { id: keywordId, accountId, filterId, phrase: 'old', context: ['home'], wholeWord: true, expiresAt: null, irreversible: false };
    // Views stored before rows kept their keyword characters: counted on upgrade (an emoji is one, a combining accent one more).
    const storedView = (id: string, keywords: string[], deleted: boolean) =>
      JSON.stringify({
        id,
        accountId,
        title: 't',
        context: ['home'],
        filterAction: 'warn',
        expiresAt: null,
        statuses: [],
        revision: 0,
        deleted,
        keywords: keywords.map((k) => ({ id: newId(), keyword: k, wholeWord: true })),
      });
    const [live, gone] = [newId(), newId()];
    writeOldFile(
      join(dir, 'read-models.sqlite'),
      `CREATE TABLE IF NOT EXISTS read_model_pointer (
        id INTEGER PRIMARY KEY CHECK (id = 1), current INTEGER NOT NULL, pending INTEGER, next INTEGER NOT NULL);
      INSERT OR IGNORE INTO read_model_pointer (id, current, pending, next) VALUES (1, 0, NULL, 1);
      CREATE TABLE IF NOT EXISTS projection_leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS filters (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, revision INTEGER NOT NULL, deleted INTEGER NOT NULL, doc TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS filters_by_account ON filters (account_id, deleted);
      CREATE TABLE IF NOT EXISTS v1_filters (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL, doc TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS v1_filters_by_account ON v1_filters (account_id);
      CREATE INDEX IF NOT EXISTS v1_filters_by_filter ON v1_filters (filter_id);
      CREATE TABLE IF NOT EXISTS filter_statuses (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS filter_statuses_by_filter ON filter_statuses (filter_id);
      CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL);`,
      `UPDATE read_model_pointer SET next = 5;
       INSERT INTO checkpoints (projection, position) VALUES ('filters', '42');
       INSERT INTO v1_filters (id, account_id, filter_id, doc) VALUES ('${keywordId}', '${accountId}', '${filterId}', '${JSON.stringify(record)}');
       INSERT INTO filters (id, account_id, revision, deleted, doc) VALUES
         ('${live}', '${accountId}', 0, 0, '${storedView(live, ['\u{1F600}x', 'cafe\u0301'], false)}'),
         ('${gone}', '${accountId}', 0, 1, '${storedView(gone, ['deleted'], true)}');`,
    );
    const store = SqliteReadStore.inDataDir(dir);
    try {
      assert.equal(await store.checkpoint('filters'), 42n);
      assert.deepEqual(await store.listV1Filters(accountId), [record]);
      assert.deepEqual(await store.accountUsage(accountId, newId()), { filters: 1, keywordCharacters: 7 });
      assert.deepEqual(await store.accountUsage(accountId, live), { filters: 0, keywordCharacters: 0 });
      assert.equal(await store.createGeneration(), 5);
    } finally {
      await store.close();
    }
    const path = join(dir, 'read-models.sqlite');
    assert.equal(versionOf(path), latestVersion(readModelsSchema));
    const file = new Database(path, { readonly: true });
    try {
      const key = file.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('v1_filters') WHERE pk > 0 ORDER BY pk").all();
      assert.deepEqual(
        key.map((c) => c.name),
        ['filter_id', 'id'],
      );
    } finally {
      file.close();
    }
  });

  it('mail.sqlite: upgraded on open, its messages listed', async () => {
    const dir = scratchDir();
    writeOldFile(
      join(dir, 'mail.sqlite'),
      `CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL, sender TEXT NOT NULL, to_addresses TEXT NOT NULL,
        cc_addresses TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, date TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS mailbox_entries (
        uid INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, folder TEXT NOT NULL,
        message INTEGER NOT NULL REFERENCES messages(id), seen INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS mailbox_entries_folder ON mailbox_entries (account_id, folder, uid);
      CREATE TABLE IF NOT EXISTS correspondents (
        account_id TEXT NOT NULL, address TEXT NOT NULL COLLATE NOCASE, last_used TEXT NOT NULL, PRIMARY KEY (account_id, address));`,
      `INSERT INTO messages (message_id, sender, to_addresses, cc_addresses, subject, body, date)
       VALUES ('<m1@localhost>', 'a@localhost', '["b@localhost"]', '[]', 'old mail', 'hello', '2026-01-01T00:00:00.000Z');
       INSERT INTO mailbox_entries (account_id, folder, message, seen) VALUES ('8', 'INBOX', 1, 0);`,
    );
    const store = SqliteMailStore.inDataDir(dir);
    try {
      const [message] = await store.list('8', 'INBOX', 10);
      assert.equal(message?.subject, 'old mail');
      assert.equal((await store.get('8', 'INBOX', message.uid))?.body, 'hello');
    } finally {
      await store.close();
    }
    assert.equal(versionOf(join(dir, 'mail.sqlite')), latestVersion(mailSchema));
  });

  it('webmail-sessions.sqlite: upgraded on open, its sessions still valid', async () => {
    const dir = scratchDir();
    const expires = Date.now() + 60_000;
    writeOldFile(
      join(dir, 'webmail-sessions.sqlite'),
      `CREATE TABLE IF NOT EXISTS webmail_sessions (
        id TEXT PRIMARY KEY, request_token TEXT NOT NULL, login_page_shown INTEGER NOT NULL, account_id TEXT,
        username TEXT, auth_secret TEXT, last_compose_id TEXT, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS webmail_sessions_expiry ON webmail_sessions (expires_at);
      CREATE TABLE IF NOT EXISTS webmail_compose (
        id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES webmail_sessions(id) ON DELETE CASCADE,
        sending INTEGER NOT NULL DEFAULT 0, defaults TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS webmail_compose_session ON webmail_compose (session_id);`,
      `INSERT INTO webmail_sessions (id, request_token, login_page_shown, account_id, username, auth_secret, expires_at)
       VALUES ('oldsession', 'oldtoken', 0, '9', 'olduser', 'oldsecret', ${expires});
       INSERT INTO webmail_compose (id, session_id, defaults) VALUES ('12345abc', 'oldsession', '{"to":"","cc":"","subject":"kept","body":""}');`,
    );
    const db = openSessionDatabase(dir);
    try {
      const session = await new SqliteSessionStore(db, 60_000).find('oldsession');
      assert.deepEqual(
        { token: session?.requestToken, account: session?.accountId, auth: matchesSessionKey('oldsecret', session?.authSecretHash ?? null) },
        { token: 'oldtoken', account: '9', auth: true },
      );
      assert.equal((await new SqliteComposeStore(db).find('oldsession', '12345abc'))?.defaults.subject, 'kept', 'its compose ID follows it');
      // Step 4 hashed them in place: the file no longer holds the id nor the secret a browser sends.
      const stored = JSON.stringify(db.prepare('SELECT * FROM webmail_sessions, webmail_compose').all());
      assert.ok(stored.includes(sessionKey('oldsession')) && stored.includes(sessionKey('oldsecret')), stored);
      assert.ok(!stored.includes('"oldsession"') && !stored.includes('oldsecret'), stored);
    } finally {
      db.close();
    }
    assert.equal(versionOf(join(dir, 'webmail-sessions.sqlite')), latestVersion(webmailSessionsSchema));
  });

  it('a file from a newer schema is refused: the store does not open and the file is left alone', () => {
    const dir = scratchDir();
    const newer = latestVersion(eventsSchema) + 1;
    writeOldFile(join(dir, 'events.sqlite'), `PRAGMA user_version = ${newer}`, 'CREATE TABLE later_things (id INTEGER)');
    assert.throws(
      () => SqliteEventStore.inDataDir(dir),
      (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.match(error.message, new RegExp(`events\\.sqlite \\(events\\) has schema version ${newer}, but this build knows versions up to ${newer - 1}`));
        return true;
      },
    );
    assert.equal(versionOf(join(dir, 'events.sqlite')), newer);
  });
});
