import type { AccountEvent } from '../../accounts/account-events.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { clientAddress, type WebmailRequest } from '../webmail-request.ts';

/**
 * Records a sign-in in the account's stream. Only the service's own accounts have one: with IMAP_URL the
 * login names an IMAP user, who is no account here. Unknown names are never recorded (there is no
 * account to tell the story of, and an attacker could write without end); userlogins.log has them.
 */
export async function recordSignIn(
  services: WebmailServices,
  request: WebmailRequest,
  outcome: 'succeeded' | 'failed',
  accountId: string,
  username: string,
): Promise<void> {
  if (!services.accountLog || services.mailboxes.kind !== 'local') return;
  const common = { accountId, username, clientAddress: clientAddress(request), at: new Date().toISOString() };
  // A wrong password proves nothing about who typed it.
  const event: AccountEvent =
    outcome === 'succeeded'
      ? { type: 'WebmailSignInSucceeded', data: { ...common, actor: { kind: 'user', accountId } } }
      : { type: 'WebmailSignInFailed', data: { ...common, actor: { kind: 'anonymous' } } };
  await services.accountLog.record(event, { requestId: String(request.ctx.state.requestId), source: 'webmail' });
}
