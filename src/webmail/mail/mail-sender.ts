import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../../accounts/account-store.ts';
import { domainOf, localPartOf, parseRecipients } from './addresses.ts';
import type { MailStore, StoredOriginal } from './mail-store.ts';
import type { SmtpRelay } from './smtp-relay.ts';

export type Draft = {
  readonly senderAccountId: string;
  readonly senderUsername: string;
  readonly to: string;
  readonly cc: string;
  readonly subject: string;
  readonly body: string;
  readonly forwarded?: readonly StoredOriginal[] | undefined;
};

/** `refused` is for the person composing (fix and send again); `relayFailed` also goes to the log. */
export type SendOutcome =
  | { readonly kind: 'sent'; readonly sentUid: number }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'relayFailed'; readonly message: string };

const MAX_SUBJECT = 998;

/**
 * Sends a draft: every recipient is checked before anything happens, mail for other domains is relayed
 * first, and only then is the message filed in one transaction (sender's Sent, local INBOXes), so a
 * send that reports success is stored, and a refused one leaves no trace.
 */
export class MailSender {
  constructor(
    private readonly deps: {
      readonly accounts: AccountStore;
      readonly mail: MailStore;
      readonly mailDomain: string;
      readonly relay: SmtpRelay | null;
      readonly now?: () => Date;
    },
  ) {}

  async send(draft: Draft): Promise<SendOutcome> {
    const to = parseRecipients(draft.to, this.deps.mailDomain);
    const cc = parseRecipients(draft.cc, this.deps.mailDomain);
    if ('invalid' in to || 'invalid' in cc) {
      return { kind: 'refused', message: `Invalid e-mail address: ${'invalid' in to ? to.invalid : (cc as { invalid: string }).invalid}` };
    }
    const everyone = [...new Set([...to.addresses, ...cc.addresses])];
    if (everyone.length === 0) return { kind: 'refused', message: 'Please enter at least one recipient.' };
    const subject = draft.subject.replace(/[\r\n]+/g, ' ').slice(0, MAX_SUBJECT);
    const localRecipients: { accountId: string; address: string }[] = [];
    const remote: string[] = [];
    for (const address of everyone) {
      if (domainOf(address) !== this.deps.mailDomain) {
        remote.push(address);
        continue;
      }
      const account = await this.deps.accounts.findAccount(localPartOf(address));
      // findAccount also matches ids; only a username names a mailbox
      if (account?.username.toLowerCase() !== localPartOf(address)) return { kind: 'refused', message: `No mailbox for ${address}.` };
      localRecipients.push({ accountId: account.id, address });
    }
    if (remote.length > 0 && !this.deps.relay) {
      return {
        kind: 'refused',
        message: `Cannot send to ${remote.join(', ')}: this server delivers only to @${this.deps.mailDomain} addresses (no SMTP_URL is configured).`,
      };
    }
    const date = (this.deps.now ?? (() => new Date()))();
    const from = `${draft.senderUsername.toLowerCase()}@${this.deps.mailDomain}`;
    const messageId = `<${randomUUID()}@${this.deps.mailDomain}>`;
    const message = { messageId, from, to: to.addresses, cc: cc.addresses, subject, body: draft.body, forwarded: draft.forwarded ?? [] };
    if (remote.length > 0) {
      try {
        await this.deps.relay!.relay({ ...message, date, envelopeTo: remote });
      } catch (error) {
        return { kind: 'relayFailed', message: (error as Error).message };
      }
    }
    const { sentUid } = await this.deps.mail.deliver({ ...message, date: date.toISOString(), senderAccountId: draft.senderAccountId, localRecipients });
    return { kind: 'sent', sentUid };
  }
}
