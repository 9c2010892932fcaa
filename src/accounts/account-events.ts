/**
 * The facts of an account's life (issue 20), stored in the stream `account-<accountId>` beside its
 * filters' streams, so `events --account` tells the account's whole story in log order. Only ids and
 * facts that are no secret go in: never a token, a client secret, a password, a code or a hash.
 */

/**
 * Who caused the fact. `operator`: someone running the CLI on the server's stores. `user`: the account's
 * owner, signed in with its password. `app`: an OAuth app, with its own client credentials.
 * `anonymous`: someone who typed a wrong password; nobody knows who it was.
 */
export type Actor =
  | { readonly kind: 'operator' }
  | { readonly kind: 'user'; readonly accountId: string }
  | { readonly kind: 'app'; readonly appId: string; readonly clientId: string }
  | { readonly kind: 'anonymous' };

export type AccountCreated = {
  readonly type: 'AccountCreated';
  readonly data: { readonly accountId: string; readonly username: string; readonly withPassword: boolean; readonly createdAt: string; readonly actor: Actor };
};

export type PasswordChanged = {
  readonly type: 'PasswordChanged';
  readonly data: { readonly accountId: string; readonly changedAt: string; readonly actor: Actor };
};

/** `appId`: the app that signed in for it (null: made with the CLI). */
export type TokenIssued = {
  readonly type: 'TokenIssued';
  readonly data: {
    readonly accountId: string;
    readonly tokenId: string;
    readonly scopes: readonly string[];
    readonly appId: string | null;
    readonly issuedAt: string;
    readonly actor: Actor;
  };
};

/** `appRevoked`: the token went with its app (`app revoke`), not on its own. */
export type TokenRevoked = {
  readonly type: 'TokenRevoked';
  readonly data: {
    readonly accountId: string;
    readonly tokenId: string;
    readonly appRevoked: string | null;
    readonly revokedAt: string;
    readonly actor: Actor;
  };
};

/** The owner signed in on the consent page and let an app act for them with these scopes. */
export type AppAuthorized = {
  readonly type: 'AppAuthorized';
  readonly data: {
    readonly accountId: string;
    readonly appId: string;
    readonly clientId: string;
    readonly appName: string;
    readonly scopes: readonly string[];
    readonly clientAddress: string;
    readonly authorizedAt: string;
    readonly actor: Actor;
  };
};

export type WebmailSignInSucceeded = {
  readonly type: 'WebmailSignInSucceeded';
  readonly data: { readonly accountId: string; readonly username: string; readonly clientAddress: string; readonly at: string; readonly actor: Actor };
};

/** A wrong password for an existing account, one the login lock counted. */
export type WebmailSignInFailed = {
  readonly type: 'WebmailSignInFailed';
  readonly data: { readonly accountId: string; readonly username: string; readonly clientAddress: string; readonly at: string; readonly actor: Actor };
};

export type AccountEvent = AccountCreated | PasswordChanged | TokenIssued | TokenRevoked | AppAuthorized | WebmailSignInSucceeded | WebmailSignInFailed;
export type AccountEventType = AccountEvent['type'];

/** The version of each type's data schema; raise one with an upcaster, as filter-event-versions.ts does. */
export const ACCOUNT_EVENT_VERSIONS: Readonly<Record<AccountEventType, number>> = {
  AccountCreated: 1,
  PasswordChanged: 1,
  TokenIssued: 1,
  TokenRevoked: 1,
  AppAuthorized: 1,
  WebmailSignInSucceeded: 1,
  WebmailSignInFailed: 1,
};

/** Where the account fact came from: the CLI, the OAuth routes, or the webmail. */
export type AccountEventSource = 'cli' | 'oauth' | 'webmail';

/** Metadata as filter events carry it, so auditors join both by request id. */
export interface AccountEventMetadata {
  readonly accountId: string;
  readonly requestId: string;
  readonly source: AccountEventSource;
  /** Each account fact is a commit of its own (the projector's commit boundaries). */
  readonly commitIndex: 0;
  readonly commitSize: 1;
  readonly schemaVersion: number;
}

export const ACCOUNT_CATEGORY = 'account';
/** Account ids are digits (shared/ids.ts): anything else named `account-...` is not this project's. */
const ACCOUNT_ID = /^[0-9]{1,20}$/;

export function accountEventsStream(accountId: string): string {
  return `${ACCOUNT_CATEGORY}-${accountId}`;
}

/** The account whose story a stream holds, or null for any other stream. */
export function accountIdOfEventsStream(streamName: string): string | null {
  if (!streamName.startsWith(`${ACCOUNT_CATEGORY}-`)) return null;
  const id = streamName.slice(ACCOUNT_CATEGORY.length + 1);
  return ACCOUNT_ID.test(id) ? id : null;
}

const isKnown = (type: string): type is AccountEventType => Object.hasOwn(ACCOUNT_EVENT_VERSIONS, type);

/** A stored account fact in its current shape; null for a type or version this code does not know (skipped). */
export function readAccountEvent(stored: { readonly type: string; readonly data: unknown; readonly metadata: unknown }): AccountEvent | null {
  if (!isKnown(stored.type) || typeof stored.data !== 'object' || stored.data === null) return null;
  const version = (stored.metadata as { schemaVersion?: unknown } | null)?.schemaVersion ?? 1;
  if (typeof version !== 'number' || version > ACCOUNT_EVENT_VERSIONS[stored.type]) return null;
  return { type: stored.type, data: stored.data } as AccountEvent;
}
