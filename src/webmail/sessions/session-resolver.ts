import type { Context } from 'koa';
import type { LoggedInSession } from '../actions/logged-in-session.ts';
import { readSessionCookies } from './session-cookies.ts';
import { matchesSessionKey } from './session-key.ts';
import type { SessionStore, WebmailSession } from './session-store.ts';

export type ResolvedSession = {
  readonly session: WebmailSession | null;
  readonly loggedIn: LoggedInSession | null;
  readonly hadSessionCookie: boolean;
  /** The browser held a session that expired, or a logged-in one whose auth cookie did not match. */
  readonly sessionLost: boolean;
};

/**
 * Finds the session named by the session cookie. A logged-in session also needs its auth cookie
 * (Roundcube's roundcube_sessauth): a stolen or fixed session id alone is not enough, and such a
 * session is ended on the spot.
 */
export async function resolveSession(ctx: Context, sessions: SessionStore): Promise<ResolvedSession> {
  const cookies = readSessionCookies(ctx);
  const hadSessionCookie = cookies.sessionId !== undefined;
  const session = hadSessionCookie ? await sessions.find(cookies.sessionId!) : null;
  if (!session) return { session: null, loggedIn: null, hadSessionCookie, sessionLost: hadSessionCookie };
  if (session.accountId === null) return { session, loggedIn: null, hadSessionCookie, sessionLost: false };
  if (!matchesSessionKey(cookies.authSecret, session.authSecretHash)) {
    await sessions.destroy(session.id);
    return { session: null, loggedIn: null, hadSessionCookie, sessionLost: true };
  }
  return { session, loggedIn: session as LoggedInSession, hadSessionCookie, sessionLost: false };
}
