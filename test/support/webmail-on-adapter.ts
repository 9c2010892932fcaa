import type { WebmailSetting } from './imap-webmail-server.ts';
import { WebmailClient } from './webmail-client.ts';
import type { WebmailServer } from './webmail-server.ts';

/** The webmail on one mailbox adapter, shared by a suite's tests; `server` is set once its `before` has run. */
export type WebmailOnAdapter = {
  readonly server: WebmailServer;
  /** A new client of the server, signed in as `user`. */
  signedIn(user: { readonly username: string; readonly password: string }): Promise<WebmailClient>;
};

/**
 * The two-adapter scaffold of the HTTP suites: the calling `describe`'s `before` starts the webmail on
 * `setting`'s adapter (the IMAP one skips, saying why, without Dovecot) and its `after` closes it.
 */
export function webmailOnAdapter(setting: WebmailSetting): WebmailOnAdapter {
  const suite = {
    server: undefined as unknown as WebmailServer,
    async signedIn(user: { readonly username: string; readonly password: string }) {
      const client = new WebmailClient(suite.server.baseUrl);
      await client.login(user.username, user.password);
      return client;
    },
  };
  before(async function () {
    this.timeout(60_000);
    suite.server = await setting.start(this);
  });
  after(async () => {
    await suite.server?.close();
  });
  return suite;
}
