import type { Mailbox } from '../mail/mailbox.ts';
import type { Viewer } from '../pages/app-frame.ts';
import type { WebmailSession } from '../sessions/session-store.ts';

/** A logged-in session: the account is known. */
export type LoggedInSession = WebmailSession & { readonly accountId: string; readonly username: string };

/** What every logged-in page shows around its content: the address, the folders and their unread counts. */
export async function viewerOf(mailbox: Mailbox, session: LoggedInSession): Promise<Viewer> {
  return { address: mailbox.address, requestToken: session.requestToken, folders: await mailbox.folders() };
}
