import { randomUUID } from 'node:crypto';
import { dovecotMissing, OwnDovecot } from './dovecot.ts';
import { startWebmailServer, type WebmailServer, type WebmailServerOptions } from './webmail-server.ts';

export type ImapWebmailServer = WebmailServer & { readonly dovecot: OwnDovecot };

/**
 * The webmail signed in against a Dovecot of the test's own (IMAP_URL, SMTP_URL for submission); its
 * `account()` makes a Dovecot user instead of a local account, so the same tests can run on both.
 */
export async function startImapWebmailServer(env: NodeJS.ProcessEnv = {}, options: WebmailServerOptions = {}): Promise<ImapWebmailServer> {
  const dovecot = await OwnDovecot.start();
  const server = await startWebmailServer({ IMAP_URL: dovecot.imapUrl, SMTP_URL: dovecot.smtpUrl, ...env }, undefined, options);
  return {
    ...server,
    dovecot,
    async account(prefix, password = `pw-${prefix}-${randomUUID()}`) {
      const username = `${prefix}${randomUUID().slice(0, 8)}`;
      dovecot.addUsers({ name: username, password });
      return { username, password, id: username };
    },
    async close() {
      await server.close();
      await dovecot.close();
    },
  };
}

export type WebmailSetting = { readonly name: string; start(context: Mocha.Context): Promise<WebmailServer> };

/** The two mailbox adapters behind the same HTTP webmail; the IMAP one skips, saying why, without Dovecot. */
export const WEBMAIL_ADAPTERS: readonly WebmailSetting[] = [
  { name: 'local accounts', start: () => startWebmailServer() },
  {
    name: 'IMAP (Dovecot)',
    async start(context) {
      const missing = dovecotMissing();
      if (missing) {
        console.log(`      skipped: ${missing}`);
        context.skip();
      }
      return startImapWebmailServer();
    },
  },
];
