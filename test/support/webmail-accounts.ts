import { randomUUID } from 'node:crypto';
import { openAccountStore, type StoreLocation } from '../../src/stores.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';

export interface Login {
  readonly id: string;
  readonly username: string;
  readonly password: string;
}

/** A fresh account with a webmail password in the given store (SQLite in DATA_DIR, or MongoDB), as the CLI makes one. */
export async function newLogin(where: StoreLocation, prefix = 'user'): Promise<Login> {
  const accounts = await openAccountStore(where);
  try {
    const username = `${prefix}${randomUUID().slice(0, 8)}`;
    const password = `pw-${randomUUID()}`;
    const account = await accounts.createAccount(username);
    await accounts.setPasswordHash(account.id, await hashPassword(password));
    return { id: account.id, username, password };
  } finally {
    await accounts.close();
  }
}
