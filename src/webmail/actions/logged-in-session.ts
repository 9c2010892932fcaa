import type { Viewer } from '../pages/app-frame.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import type { WebmailSession } from '../sessions/session-store.ts';

/** A logged-in session: the account is known. */
export type LoggedInSession = WebmailSession & { readonly accountId: string; readonly username: string };

export function addressOf(services: WebmailServices, session: LoggedInSession): string {
  return `${session.username.toLowerCase()}@${services.config.mailDomain}`;
}

export async function viewerOf(services: WebmailServices, session: LoggedInSession): Promise<Viewer> {
  return {
    address: addressOf(services, session),
    requestToken: session.requestToken,
    unread: {
      INBOX: await services.mail.unreadCount(session.accountId, 'INBOX'),
      Sent: await services.mail.unreadCount(session.accountId, 'Sent'),
    },
  };
}
