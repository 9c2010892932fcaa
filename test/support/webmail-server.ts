import Koa from 'koa';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { createWebmail, type Webmail } from '../../src/webmail/index.ts';
import { scratchDir } from './scratch-dir.ts';

export type WebmailServer = {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly logDir: string;
  readonly accounts: SqliteAccountStore;
  readonly webmail: Webmail;
  /** A fresh account with a password; the username gets a random suffix so tests never collide. */
  account(prefix: string, password?: string): Promise<{ username: string; password: string; id: string }>;
  errorLines(): string[];
  loginLines(): string[];
  close(): Promise<void>;
};

let counter = 0;

function lines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

export type WebmailServerOptions = {
  /** Koa's app.proxy: trust X-Forwarded-* headers. */
  readonly behindProxy?: boolean;
  /** The failed-login pause. These servers skip its second by default; the test of the pause holds it itself. */
  readonly pause?: (ms: number) => Promise<void>;
  /** The clock of sessions and login counters, for tests that let time pass without waiting. */
  readonly now?: () => number;
};

/** A Koa app that mounts only the webmail, on 127.0.0.1 and a free port, over a fresh data directory. */
export async function startWebmailServer(
  env: NodeJS.ProcessEnv = {},
  dataDir = scratchDir('webmail-'),
  options: WebmailServerOptions = {},
): Promise<WebmailServer> {
  const accounts = SqliteAccountStore.inDataDir(dataDir);
  const webmail = await createWebmail({ accounts, dataDir, env, pause: options.pause ?? (async () => {}), now: options.now });
  const app = new Koa();
  app.silent = true;
  app.proxy = options.behindProxy ?? false;
  app.use(webmail.middleware);
  app.use((ctx) => {
    ctx.status = 418;
    ctx.body = 'not the webmail';
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const logDir = webmail.config.logDir;
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dataDir,
    logDir,
    accounts,
    webmail,
    async account(prefix, password = `pw-${prefix}-secret`) {
      counter += 1;
      const username = `${prefix}${counter}${Math.random().toString(36).slice(2, 6)}`;
      const account = await accounts.createAccount(username);
      await accounts.setPasswordHash(account.id, await hashPassword(password));
      return { username, password, id: account.id };
    },
    errorLines: () => lines(join(logDir, 'errors.log')),
    loginLines: () => lines(join(logDir, 'userlogins.log')),
    async close() {
      server.closeAllConnections();
      server.close();
      await webmail.close();
      await accounts.close();
    },
  };
}
