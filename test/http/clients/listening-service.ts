import { loadConfig } from '../../../src/config.ts';
import { startService, type RunningService } from '../../../src/service.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { tempDir } from '../../support/temp-dir.ts';

export interface ClientAccount {
  readonly id: string;
  readonly token: string;
}

export interface ListeningService {
  readonly url: string;
  /** A fresh account and a token for it, so no test sees another test's filters. */
  account(scopes?: readonly string[]): Promise<ClientAccount>;
}

let usernames = 0;

/**
 * Registers mocha hooks that start a real listening service, on its own data directory, before the
 * enclosing describe's tests and close it after them. Call it in a describe body.
 */
export function listeningService(): ListeningService {
  let service: RunningService | undefined;
  const running = (): RunningService => {
    if (!service) throw new Error('the service starts in a before hook: use it inside tests only');
    return service;
  };
  before(async () => {
    const config = loadConfig({ DATA_DIR: tempDir(), PORT: '0', HOST: '127.0.0.1' });
    service = await startService({ config, logger: silentLogger });
  });
  after(async () => {
    await service?.close();
  });
  return {
    get url() {
      return running().url;
    },
    async account(scopes = ['read:filters', 'write:filters']) {
      usernames += 1;
      const { accounts } = running().stores;
      const account = await accounts.createAccount(`client${process.pid}_${usernames}`);
      return { id: account.id, token: await accounts.createToken(account.id, scopes) };
    },
  };
}
