import { randomBytes } from 'node:crypto';
import { Binary, type Collection, type Db } from 'mongodb';
import { formatToken, hashSecret, mintSecret, secretMatches, splitToken } from '../accounts/token-secret.ts';
import { newId } from '../shared/ids.ts';
import { isDuplicateKey, isKey, mongoCall } from '../shared/mongo-connection.ts';
import type { MongoSchema } from '../shared/mongo-migrations.ts';
import type { AppTokenGrant, CodeGrant, NewApp, OAuthApp, OAuthStore } from './oauth-store.ts';

interface AppDoc extends Omit<OAuthApp, 'id' | 'redirectUris' | 'scopes'> {
  _id: string;
  secretHash: Binary;
  redirectUris: string[];
  scopes: string[];
}

interface CodeDoc extends Omit<CodeGrant, 'scopes'> {
  /** The code's hash (hex): the code itself is never stored. */
  _id: string;
  scopes: string[];
  usedAt: string | null;
  /** For the server's TTL monitor: a code is removed a day after it expired (as the SQLite adapter does). */
  removeAt: Date;
}

interface AppTokenDoc {
  _id: string;
  appId: string;
  /** Null for an account token: only which app issued it is kept here. */
  secretHash: Binary | null;
  scopes: string[];
  createdAt: string;
  revokedAt: string | null;
}

interface DeploymentKeyDoc {
  _id: string;
  value: Binary;
}

const STORE = 'OAuth apps';
const DEVICE_COOKIE_KEY = 'device_cookie';
const CODE_KEEP_MS = 24 * 60 * 60 * 1000;

/** The OAuth collections, step by step. Add a step for every change; never edit one that has shipped. */
export const mongoOAuthSchema: MongoSchema = {
  name: 'oauth',
  steps: [
    {
      version: 1,
      description: 'oauth_apps by client id, oauth_codes removed by the TTL monitor, oauth_app_tokens by app',
      up: async (db) => {
        await db.collection('oauth_apps').createIndex({ clientId: 1 }, { name: 'by_client_id', unique: true });
        await db.collection('oauth_codes').createIndex({ removeAt: 1 }, { name: 'by_removal', expireAfterSeconds: 0 });
        await db.collection('oauth_app_tokens').createIndex({ appId: 1 }, { name: 'by_app' });
      },
    },
  ],
};

const toApp = (doc: AppDoc): OAuthApp => ({
  id: doc._id,
  clientId: doc.clientId,
  name: doc.name,
  website: doc.website,
  redirectUris: doc.redirectUris,
  scopes: doc.scopes,
  createdAt: doc.createdAt,
  revokedAt: doc.revokedAt,
});

const codeId = (code: string): string => hashSecret(code).toString('hex');
const hashOf = (binary: Binary): Buffer => Buffer.from(binary.buffer);

/** Apps, codes and app tokens in MongoDB (`oauth_apps`, `oauth_codes`, `oauth_app_tokens`), shared by every host. */
export class MongoOAuthStore implements OAuthStore {
  private readonly apps: Collection<AppDoc>;
  private readonly codes: Collection<CodeDoc>;
  private readonly tokens: Collection<AppTokenDoc>;
  private readonly keys: Collection<DeploymentKeyDoc>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    this.apps = db.collection('oauth_apps');
    this.codes = db.collection('oauth_codes');
    this.tokens = db.collection('oauth_app_tokens');
    this.keys = db.collection('oauth_deployment_keys');
  }

  createApp(app: NewApp): Promise<{ app: OAuthApp; clientSecret: string }> {
    return mongoCall(STORE, async () => {
      const clientSecret = mintSecret();
      const doc: AppDoc = {
        _id: newId(),
        clientId: randomBytes(32).toString('base64url'),
        secretHash: new Binary(hashSecret(clientSecret)),
        name: app.name,
        website: app.website,
        redirectUris: [...app.redirectUris],
        scopes: [...app.scopes],
        createdAt: new Date().toISOString(),
        revokedAt: null,
      };
      await this.apps.insertOne(doc);
      return { app: toApp(doc), clientSecret };
    });
  }

  findApp(clientId: string): Promise<OAuthApp | null> {
    return mongoCall(STORE, async () => {
      const doc = await this.activeApp(clientId);
      return doc ? toApp(doc) : null;
    });
  }

  findAppById(appId: string): Promise<OAuthApp | null> {
    return mongoCall(STORE, async () => {
      const doc = isKey(appId) ? await this.apps.findOne({ _id: appId, revokedAt: null }) : null;
      return doc ? toApp(doc) : null;
    });
  }

  verifyClient(clientId: string, clientSecret: string): Promise<OAuthApp | null> {
    return mongoCall(STORE, async () => {
      const doc = await this.activeApp(clientId);
      return doc && isKey(clientSecret) && secretMatches(clientSecret, hashOf(doc.secretHash)) ? toApp(doc) : null;
    });
  }

  listApps(): Promise<readonly OAuthApp[]> {
    return mongoCall(STORE, async () => (await this.apps.find().sort({ createdAt: 1, _id: 1 }).toArray()).map(toApp));
  }

  revokeApp(appId: string): Promise<readonly string[] | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(appId)) return null;
      const now = new Date().toISOString();
      // The guarded update decides which of two revocations names the tokens; the token updates may repeat.
      const revoked = await this.apps.updateOne({ _id: appId, revokedAt: null }, { $set: { revokedAt: now } });
      if (revoked.modifiedCount === 0) return null;
      await this.tokens.updateMany({ appId, revokedAt: null }, { $set: { revokedAt: now } });
      const accountTokens = await this.tokens.find({ appId, secretHash: null }, { projection: { _id: 1 } }).toArray();
      return accountTokens.map((doc) => doc._id);
    });
  }

  createCode(grant: CodeGrant): Promise<string> {
    return mongoCall(STORE, async () => {
      const code = mintSecret();
      await this.codes.insertOne({
        _id: codeId(code),
        appId: grant.appId,
        accountId: grant.accountId,
        redirectUri: grant.redirectUri,
        scopes: [...grant.scopes],
        codeChallenge: grant.codeChallenge,
        codeChallengeMethod: grant.codeChallengeMethod,
        expiresAt: grant.expiresAt,
        usedAt: null,
        removeAt: new Date(grant.expiresAt.getTime() + CODE_KEEP_MS),
      });
      return code;
    });
  }

  findCode(code: string): Promise<CodeGrant | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(code)) return null;
      const doc = await this.codes.findOne({ _id: codeId(code), usedAt: null });
      if (!doc) return null;
      const { appId, accountId, redirectUri, scopes, codeChallenge, codeChallengeMethod, expiresAt } = doc;
      return { appId, accountId, redirectUri, scopes, codeChallenge, codeChallengeMethod, expiresAt };
    });
  }

  useCode(code: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(code)) return false;
      // One atomic guarded update: of racing callers, on any host, only one finds usedAt still null.
      const used = await this.codes.findOneAndUpdate(
        { _id: codeId(code), usedAt: null },
        { $set: { usedAt: new Date().toISOString() } },
        { projection: { _id: 1 } },
      );
      return used !== null;
    });
  }

  recordAccountToken(tokenId: string, appId: string): Promise<void> {
    return mongoCall(STORE, async () => {
      await this.tokens.insertOne({ _id: tokenId, appId, secretHash: null, scopes: [], createdAt: new Date().toISOString(), revokedAt: null });
    });
  }

  appOfToken(tokenId: string): Promise<OAuthApp | null> {
    return mongoCall(STORE, async () => {
      const token = isKey(tokenId) ? await this.tokens.findOne({ _id: tokenId }) : null;
      const app = token ? await this.apps.findOne({ _id: token.appId }) : null;
      return app ? toApp(app) : null;
    });
  }

  createAppToken(appId: string, scopes: readonly string[]): Promise<string> {
    return mongoCall(STORE, async () => {
      const tokenId = newId();
      const secret = mintSecret();
      await this.tokens.insertOne({
        _id: tokenId,
        appId,
        secretHash: new Binary(hashSecret(secret)),
        scopes: [...scopes],
        createdAt: new Date().toISOString(),
        revokedAt: null,
      });
      return formatToken(tokenId, secret);
    });
  }

  authenticateAppToken(token: string): Promise<AppTokenGrant | null> {
    return mongoCall(STORE, async () => {
      const parts = isKey(token) ? splitToken(token) : null;
      if (!parts) return null;
      const doc = await this.tokens.findOne({ _id: parts.tokenId });
      if (!doc?.secretHash || doc.revokedAt !== null || !secretMatches(parts.secret, hashOf(doc.secretHash))) return null;
      const app = await this.apps.findOne({ _id: doc.appId, revokedAt: null });
      return app ? { tokenId: doc._id, app: toApp(app), scopes: doc.scopes } : null;
    });
  }

  revokeAppToken(token: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      const grant = await this.authenticateAppToken(token);
      if (!grant) return false;
      await this.tokens.updateOne({ _id: grant.tokenId }, { $set: { revokedAt: new Date().toISOString() } });
      return true;
    });
  }

  deviceCookieKey(): Promise<Buffer> {
    return mongoCall(STORE, async () => {
      // _id is unique: of racing first inserts on any host one lands, the others read its key.
      try {
        await this.keys.insertOne({ _id: DEVICE_COOKIE_KEY, value: new Binary(randomBytes(32)) });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const doc = await this.keys.findOne({ _id: DEVICE_COOKIE_KEY });
      return hashOf(doc!.value);
    });
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private async activeApp(clientId: string): Promise<AppDoc | null> {
    return isKey(clientId) ? this.apps.findOne({ clientId, revokedAt: null }) : null;
  }
}
