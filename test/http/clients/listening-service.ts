import { TestServer, type TestAccount } from '../../support/test-server.ts';

export interface ListeningService {
  readonly url: string;
  /** A fresh account and a token for it, so no test sees another test's filters. */
  account(scopes?: readonly string[]): Promise<TestAccount>;
}

/**
 * Registers mocha hooks that start a real listening service, on its own data directory, before the
 * enclosing describe's tests and close it after them. Call it in a describe body.
 */
export function listeningService(): ListeningService {
  let server: TestServer | undefined;
  const running = (): TestServer => {
    if (!server) throw new Error('the service starts in a before hook: use it inside tests only');
    return server;
  };
  before(async () => {
    server = await TestServer.start();
  });
  after(async () => {
    await server?.close();
  });
  return {
    get url() {
      return running().url;
    },
    account: (scopes) => running().account(scopes),
  };
}
