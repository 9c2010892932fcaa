/** A registered Mastodon app (a Doorkeeper application). Its secret is never stored, only its hash. */
export interface OAuthApp {
  readonly id: string;
  readonly clientId: string;
  readonly name: string;
  readonly website: string | null;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export interface NewApp {
  readonly name: string;
  readonly website: string | null;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
}

export interface CodeGrant {
  readonly appId: string;
  readonly accountId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: string | null;
  readonly expiresAt: Date;
}

/** A token of an app with no account (client_credentials). */
export interface AppTokenGrant {
  readonly tokenId: string;
  readonly app: OAuthApp;
  readonly scopes: readonly string[];
}

/**
 * The OAuth port: apps, authorization codes, and which app each token belongs to. Account tokens
 * themselves stay in the AccountStore (one place for their hashes and revocation); an app-only token,
 * which has no account, is kept here, also only as a hash.
 */
export interface OAuthStore {
  /** The app and its client secret, shown only this once. */
  createApp(app: NewApp): Promise<{ app: OAuthApp; clientSecret: string }>;
  /** Active apps only. */
  findApp(clientId: string): Promise<OAuthApp | null>;
  findAppById(appId: string): Promise<OAuthApp | null>;
  /** The active app whose client secret this is; null otherwise (compared in constant time). */
  verifyClient(clientId: string, clientSecret: string): Promise<OAuthApp | null>;
  listApps(): Promise<readonly OAuthApp[]>;
  /** Marks the app revoked and returns the account token ids it issued (the caller revokes them). */
  revokeApp(appId: string): Promise<readonly string[] | null>;
  /** Stores the grant under the code's hash and returns the code. */
  createCode(grant: CodeGrant): Promise<string>;
  /** The grant of an unused code (expired ones too: the caller tells them apart). */
  findCode(code: string): Promise<CodeGrant | null>;
  /** True for exactly one caller per code: single use, also between processes. */
  useCode(code: string): Promise<boolean>;
  recordAccountToken(tokenId: string, appId: string): Promise<void>;
  /** Which app issued an account token; null for CLI-made tokens. */
  appOfToken(tokenId: string): Promise<OAuthApp | null>;
  createAppToken(appId: string, scopes: readonly string[]): Promise<string>;
  authenticateAppToken(token: string): Promise<AppTokenGrant | null>;
  revokeAppToken(token: string): Promise<boolean>;
  /**
   * The deployment's key for signing device cookies (32 random bytes): made by whichever process asks
   * first (a racing second one gets the first's), then the same for every process and across restarts.
   */
  deviceCookieKey(): Promise<Buffer>;
  close(): Promise<void>;
}
