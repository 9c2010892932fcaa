import { Binary, type Collection, type Db } from 'mongodb';
import { newId } from '../shared/ids.ts';
import { isDuplicateKey, isKey, mongoCall } from '../shared/mongo-connection.ts';
import { AccountError, checkUsername, LAST_USED_PRECISION_MS, type Account, type AccountStore, type TokenGrant, type TokenRecord } from './account-store.ts';
import { formatToken, hashSecret, mintSecret, secretMatches, splitToken } from './token-secret.ts';

interface AccountDoc {
  _id: string;
  username: string;
  /** The username with ASCII letters lowered: what uniqueness and lookups compare (SQLite's NOCASE). */
  usernameKey: string;
  passwordHash: string | null;
  createdAt: string;
}

interface TokenDoc {
  _id: string;
  accountId: string;
  secretHash: Binary;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const STORE = 'accounts';

/** Only ASCII letters, as SQLite's NOCASE: `\u212A` (the Kelvin sign) must not find the account `k`. */
const usernameKey = (name: string): string => name.replace(/[A-Z]/g, (c) => c.toLowerCase());

const toAccount = (doc: AccountDoc): Account => ({ id: doc._id, username: doc.username, createdAt: doc.createdAt });

const toTokenRecord = (doc: TokenDoc): TokenRecord => ({
  tokenId: doc._id,
  accountId: doc.accountId,
  scopes: doc.scopes,
  createdAt: doc.createdAt,
  lastUsedAt: doc.lastUsedAt,
  revokedAt: doc.revokedAt,
});

/** Accounts and tokens in MongoDB (`accounts`, `access_tokens`), shared by every process and host. */
export class MongoAccountStore implements AccountStore {
  private readonly accounts: Collection<AccountDoc>;
  private readonly tokens: Collection<TokenDoc>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    this.accounts = db.collection('accounts');
    this.tokens = db.collection('access_tokens');
  }

  createAccount(username: string): Promise<Account> {
    return mongoCall(STORE, async () => {
      checkUsername(username);
      const account = { id: newId(), username, createdAt: new Date().toISOString() };
      try {
        await this.accounts.insertOne({ _id: account.id, username, usernameKey: usernameKey(username), passwordHash: null, createdAt: account.createdAt });
      } catch (error) {
        if (isDuplicateKey(error)) throw new AccountError(`username "${username}" is taken`);
        throw error;
      }
      return account;
    });
  }

  findAccount(usernameOrId: string): Promise<Account | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(usernameOrId)) return null;
      const doc = await this.accounts.findOne({ $or: [{ _id: usernameOrId }, { usernameKey: usernameKey(usernameOrId) }] });
      return doc ? toAccount(doc) : null;
    });
  }

  searchAccounts(prefix: string, limit: number): Promise<readonly Account[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(prefix) || limit <= 0) return [];
      const key = usernameKey(prefix);
      // A range, not a regular expression: nothing in the prefix is ever a pattern.
      const docs = await this.accounts
        .find({ usernameKey: { $gte: key, $lt: `${key}\uffff` } })
        .sort({ usernameKey: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toAccount);
    });
  }

  createToken(accountId: string, scopes: readonly string[]): Promise<string> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !(await this.accounts.findOne({ _id: accountId }, { projection: { _id: 1 } }))) {
        throw new AccountError(`no account ${String(accountId)}`);
      }
      const tokenId = newId();
      const secret = mintSecret();
      await this.tokens.insertOne({
        _id: tokenId,
        accountId,
        secretHash: new Binary(hashSecret(secret)),
        scopes: [...scopes],
        createdAt: new Date().toISOString(),
        lastUsedAt: null,
        revokedAt: null,
      });
      return formatToken(tokenId, secret);
    });
  }

  revokeToken(token: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      const doc = await this.tokenDoc(token);
      if (!doc) return false;
      const result = await this.tokens.updateOne({ _id: doc._id, revokedAt: null }, { $set: { revokedAt: new Date().toISOString() } });
      return result.modifiedCount === 1;
    });
  }

  revokeTokenById(tokenId: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(tokenId)) return false;
      const result = await this.tokens.updateOne({ _id: tokenId, revokedAt: null }, { $set: { revokedAt: new Date().toISOString() } });
      return result.modifiedCount === 1;
    });
  }

  tokenRevokedAt(tokenId: string): Promise<string | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(tokenId)) return null;
      const token = await this.tokens.findOne({ _id: tokenId }, { projection: { revokedAt: 1 } });
      return token?.revokedAt ?? null;
    });
  }

  findToken(tokenId: string): Promise<TokenRecord | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(tokenId)) return null;
      const doc = await this.tokens.findOne({ _id: tokenId });
      return doc ? toTokenRecord(doc) : null;
    });
  }

  listTokens(accountId: string): Promise<readonly TokenRecord[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId)) return [];
      const docs = await this.tokens.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map(toTokenRecord);
    });
  }

  isRevokedToken(token: string): Promise<boolean> {
    return mongoCall(STORE, async () => ((await this.tokenDoc(token))?.revokedAt ?? null) !== null);
  }

  authenticate(token: string): Promise<TokenGrant | null> {
    return mongoCall(STORE, async () => {
      const doc = await this.tokenDoc(token);
      if (!doc || doc.revokedAt !== null) return null;
      const account = await this.accounts.findOne({ _id: doc.accountId });
      if (!account) return null;
      await this.recordUse(doc);
      return { tokenId: doc._id, account: toAccount(account), scopes: doc.scopes };
    });
  }

  setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    return mongoCall(STORE, async () => {
      const result = isKey(accountId) ? await this.accounts.updateOne({ _id: accountId }, { $set: { passwordHash } }) : null;
      if (!result || result.matchedCount === 0) throw new AccountError(`no account ${String(accountId)}`);
    });
  }

  passwordHash(accountId: string): Promise<string | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId)) return null;
      return (await this.accounts.findOne({ _id: accountId }))?.passwordHash ?? null;
    });
  }

  close(): Promise<void> {
    return this.onClose();
  }

  /**
   * Written only when the stored time is older than the precision, so a busy token costs one write a
   * minute. Bookkeeping: a write that fails (a full disk, a lost primary) fails no request, and is tried
   * again at the token's next use.
   */
  private async recordUse(doc: TokenDoc): Promise<void> {
    const now = Date.now();
    if (doc.lastUsedAt !== null && now - Date.parse(doc.lastUsedAt) < LAST_USED_PRECISION_MS) return;
    await this.tokens.updateOne({ _id: doc._id }, { $set: { lastUsedAt: new Date(now).toISOString() } }).catch(() => {});
  }

  /** The document of a well-formed token whose secret matches; null for anything else. */
  private async tokenDoc(token: string): Promise<TokenDoc | null> {
    const parts = isKey(token) ? splitToken(token) : null;
    if (!parts) return null;
    const doc = await this.tokens.findOne({ _id: parts.tokenId });
    return doc && secretMatches(parts.secret, Buffer.from(doc.secretHash.buffer)) ? doc : null;
  }
}
