import type { Account, AccountStore } from '../accounts/account-store.ts';
import { openAccountStore } from '../stores.ts';
import type { Config } from '../config.ts';
import { CliError } from './cli-error.ts';
import { requireAccounts } from './existing-stores.ts';

/** The account store the server uses. `existing`: for commands that only read, refuse a missing one. */
export function openAccounts(config: Config, existing = false): Promise<AccountStore> {
  if (existing) requireAccounts(config);
  return openAccountStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl });
}

/** Runs `work` with the store open, and closes it whatever happens. */
export async function withAccounts<T>(config: Config, existing: boolean, work: (store: AccountStore) => Promise<T>): Promise<T> {
  const store = await openAccounts(config, existing);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Every command names an account by username or by id, as the operator prefers. */
export async function findAccountOrFail(store: AccountStore, who: string): Promise<Account> {
  const found = await store.findAccount(who);
  if (!found) throw new CliError(`no account "${who}" (give a username or an account id)`);
  return found;
}

/** For commands that need only the account's id (the event log knows accounts by id). */
export function accountId(config: Config, who: string): Promise<string> {
  return withAccounts(config, true, async (store) => (await findAccountOrFail(store, who)).id);
}
