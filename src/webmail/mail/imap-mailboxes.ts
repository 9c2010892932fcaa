import { connectImap, isAuthFailure, parseImapUrl, unavailable, type ImapServer } from './imap-connection.ts';
import { ImapMailbox } from './imap-mailbox.ts';
import { ImapOutbox } from './imap-outbox.ts';
import { MessageParser } from './message-parser.ts';
import { MailboxUnavailable, type MailIdentity, type Mailbox, type MailboxProvider } from './mailbox.ts';
import type { CredentialSealer } from './credential-sealer.ts';

const MAX_USER = 256;

/**
 * The IMAP server's users (IMAP_URL): signing in is an IMAP LOGIN with the user's credentials, and the
 * session keeps the password sealed so each request can log in again, as Roundcube keeps it encrypted
 * in its session. Mail goes out through SMTP_URL as the same user.
 */
export class ImapMailboxes implements MailboxProvider {
  readonly kind = 'imap';
  private readonly server: ImapServer;
  /** Shared by every request, so its bounds hold for the whole process. */
  private readonly parser = new MessageParser();

  constructor(
    private readonly deps: { readonly imapUrl: string; readonly smtpUrl: string | undefined; readonly mailDomain: string; readonly sealer: CredentialSealer },
  ) {
    this.server = parseImapUrl(deps.imapUrl);
  }

  /** Failures count against the login name as typed (case-insensitively): the IMAP server knows no other id. */
  async rateLimitKey(user: string): Promise<string | null> {
    return user === '' ? null : `imap:${user.toLowerCase()}`;
  }

  /** IMAP users are no accounts of this service. */
  async knownAccountId(): Promise<string | null> {
    return null;
  }

  async authenticate(user: string, password: string): Promise<MailIdentity | null> {
    if (user === '' || password === '' || user.length > MAX_USER) return null;
    try {
      const client = await connectImap(this.server, user, password);
      await client.logout().catch(() => client.close());
    } catch (error) {
      if (isAuthFailure(error)) return null;
      throw unavailable(this.server, error);
    }
    return { accountId: user, username: user, secret: this.deps.sealer.seal(password) };
  }

  async open(identity: MailIdentity): Promise<Mailbox> {
    const password = identity.secret === null ? null : this.deps.sealer.open(identity.secret);
    if (password === null) throw new MailboxUnavailable(`no usable credentials for ${identity.username} in the session`, 'PHP');
    try {
      const client = await connectImap(this.server, identity.username, password);
      const outbox = this.deps.smtpUrl ? new ImapOutbox(this.deps.smtpUrl, { user: identity.username, password }, this.deps.mailDomain) : null;
      return new ImapMailbox(client, this.server, outbox, this.parser, this.addressOf(identity.username), this.deps.mailDomain);
    } catch (error) {
      throw unavailable(this.server, error);
    }
  }

  close(): Promise<void> {
    return this.parser.close();
  }

  private addressOf(user: string): string {
    return user.includes('@') ? user.toLowerCase() : `${user.toLowerCase()}@${this.deps.mailDomain}`;
  }
}
