import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';

export interface Owner {
  readonly accountId: string;
  readonly token: string;
}

/** An account and a read/write token in the data directory's account store, as the CLI would make them. */
export async function newOwner(dataDir: string, username = `u${Math.floor(Math.random() * 1e9)}`): Promise<Owner> {
  const accounts = SqliteAccountStore.inDataDir(dataDir);
  try {
    const account = await accounts.createAccount(username);
    return { accountId: account.id, token: await accounts.createToken(account.id, ['read:filters', 'write:filters']) };
  } finally {
    await accounts.close();
  }
}

export interface Answer {
  readonly status: number;
  // Typed loosely on purpose: answers are the JSON under test, read field by field.
  readonly body: any;
}

/** A tiny JSON client for the filters API. */
export function filtersApi(baseUrl: string, token: string) {
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
    put: (path: string, body: unknown) => call('PUT', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

export const newFilter = (title: string, keyword = 'magic') => ({ title, context: ['home'], keywords_attributes: [{ keyword }] });
