import type { ComposeStore } from './sessions/compose-store.ts';
import type { LoginRateLimit, RateLimitPolicy } from './sessions/login-rate-limit.ts';
import type { MailStore } from './mail/mail-store.ts';
import type { SessionStore } from './sessions/session-store.ts';

/** The webmail's state: what every API process must share. */
export interface WebmailStores {
  readonly sessions: SessionStore;
  readonly compose: ComposeStore;
  readonly mail: MailStore;
  readonly rateLimit: LoginRateLimit;
  close(): Promise<void>;
}

export interface WebmailStoreOptions {
  readonly dataDir: string;
  /** MONGODB_URL: when set, everything lives in MongoDB and nothing in DATA_DIR. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
  readonly idleMillis: number;
  readonly rateLimit: RateLimitPolicy;
  /** The clock session expiry and failure windows are measured by (tests move it instead of waiting). */
  readonly now?: (() => number) | undefined;
}

/**
 * SQLite in DATA_DIR (`webmail-sessions.sqlite` for sessions, compose IDs and login counters,
 * `mail.sqlite` for mail), or MongoDB when MONGODB_URL is set. The MongoDB driver is loaded only then.
 */
export async function openWebmailStores(options: WebmailStoreOptions): Promise<WebmailStores> {
  if (options.mongodbUrl) return openMongoWebmailStores(options.mongodbUrl, options);
  const { openSessionDatabase } = await import('./sessions/sqlite-sessions-schema.ts');
  const { SqliteSessionStore } = await import('./sessions/sqlite-session-store.ts');
  const { SqliteComposeStore } = await import('./sessions/sqlite-compose-store.ts');
  const { SqliteLoginRateLimit } = await import('./sessions/sqlite-login-rate-limit.ts');
  const { SqliteMailStore } = await import('./mail/sqlite-mail-store.ts');
  const { retryingStore } = await import('../shared/sqlite-busy.ts');
  const now = options.now ?? Date.now;
  // SQLite's own wait for a lock sleeps the event loop: a few ms there, the rest as asynchronous retries.
  const sessionDb = openSessionDatabase(options.dataDir, 'main-thread');
  const mail = SqliteMailStore.inDataDir(options.dataDir);
  const sessions = new SqliteSessionStore(sessionDb, options.idleMillis, now);
  const rateLimit = new SqliteLoginRateLimit(sessionDb, { now, ...options.rateLimit });
  return {
    sessions: retryingStore(sessions, 'webmail sessions', ['create', 'find', 'logIn', 'markLoginPageShown', 'rememberSentCompose', 'destroy']),
    compose: retryingStore(new SqliteComposeStore(sessionDb), 'webmail compose', [
      'open',
      'find',
      'claim',
      'release',
      'finish',
      'attach',
      'attachments',
      'attachedFiles',
      'detach',
      'keepDraft',
    ]),
    mail: retryingStore(mail, 'mail', [
      'deliver',
      'list',
      'count',
      'search',
      'listNewerThan',
      'get',
      'markSeen',
      'setFlag',
      'unreadCount',
      'moveToTrash',
      'moveTo',
      'saveDraft',
      'deleteDraft',
      'correspondents',
    ]),
    rateLimit: retryingStore(rateLimit, 'login counters', ['isLocked', 'recordFailure', 'forget']),
    async close() {
      await mail.close();
      sessionDb.close();
    },
  };
}

async function openMongoWebmailStores(url: string, options: WebmailStoreOptions): Promise<WebmailStores> {
  const { connectMongo } = await import('../shared/mongo-connection.ts');
  const { mongoWebmailSchema } = await import('./sessions/mongo-webmail-schema.ts');
  const { mongoMailSchema } = await import('./mail/mongo-mail-schema.ts');
  const { MongoSessionStore } = await import('./sessions/mongo-session-store.ts');
  const { MongoComposeStore } = await import('./sessions/mongo-compose-store.ts');
  const { MongoLoginRateLimit } = await import('./sessions/mongo-login-rate-limit.ts');
  const { MongoMailStore } = await import('./mail/mongo-mail-store.ts');
  const now = options.now ?? Date.now;
  const { client, db } = await connectMongo(url, 'webmail', [mongoWebmailSchema, mongoMailSchema], options.mongoDatabase);
  return {
    sessions: new MongoSessionStore(db, options.idleMillis, now),
    compose: new MongoComposeStore(db),
    mail: new MongoMailStore(db),
    rateLimit: new MongoLoginRateLimit(db, { now, ...options.rateLimit }),
    close: () => client.close(),
  };
}
