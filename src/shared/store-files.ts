import { join } from 'node:path';

/** A setting that moves a store out of DATA_DIR into a server, which backs it up with its own tools. */
export type StoreServer = 'EVENTSTORE_URL' | 'MONGODB_URL' | 'REDIS_URL';

export interface StoreFile {
  readonly file: string;
  /** Settings any one of which moves the store to its server (no setting: always in DATA_DIR). */
  readonly movedBy: readonly StoreServer[];
}

/**
 * Every file the embedded adapters keep in DATA_DIR, named here once: each adapter opens its file through
 * `storePath`, and `backup` copies this list, so a store added here cannot be left out of a backup.
 * Order is backup order: the read models before the event log (backup-command.ts says why).
 */
export const STORE_FILES = {
  readModels: { file: 'read-models.sqlite', movedBy: ['MONGODB_URL'] },
  events: { file: 'events.sqlite', movedBy: ['EVENTSTORE_URL'] },
  accounts: { file: 'accounts.sqlite', movedBy: ['MONGODB_URL'] },
  oauth: { file: 'oauth.sqlite', movedBy: ['MONGODB_URL'] },
  idempotency: { file: 'idempotency.sqlite', movedBy: ['MONGODB_URL'] },
  webmailSessions: { file: 'webmail-sessions.sqlite', movedBy: ['MONGODB_URL'] },
  mail: { file: 'mail.sqlite', movedBy: ['MONGODB_URL'] },
  rateLimits: { file: 'rate-limits.sqlite', movedBy: ['REDIS_URL', 'MONGODB_URL'] },
} as const satisfies Record<string, StoreFile>;

export type StoreName = keyof typeof STORE_FILES;

export const storePath = (dataDir: string, store: StoreName): string => join(dataDir, STORE_FILES[store].file);
