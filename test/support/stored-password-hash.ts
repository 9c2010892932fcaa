import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';

/** The password hash the account store in `dataDir` keeps for `username`, or null without such an account. */
export async function storedPasswordHash(dataDir: string, username: string): Promise<string | null> {
  const store = SqliteAccountStore.inDataDir(dataDir);
  try {
    const account = await store.findAccount(username);
    return account ? store.passwordHash(account.id) : null;
  } finally {
    await store.close();
  }
}
