import Router from '@koa/router';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context } from 'koa';
import type { Account, AccountStore } from '../../accounts/account-store.ts';
import { verifyAgainstNothing, verifyPassword } from '../../accounts/passwords.ts';
import { requestParams } from '../../http/request-params.ts';
import { paramsOf } from '../../http/route-context.ts';
import { checkAuthorization, redirectTarget, type Checked } from '../authorization-request.ts';
import { codePage, consentPage, errorPage } from '../consent-page.ts';
import { describe } from '../doorkeeper-errors.ts';
import { DeviceCookies } from '../device-cookie.ts';
import type { OAuthStore } from '../oauth-store.ts';
import { answerThrottled, type AccountSignInThrottle } from '../sign-in-throttle.ts';
import type { AccountLog } from '../../accounts/account-log.ts';
import { clientAddress } from '../../shared/client-address.ts';

/** Doorkeeper's default code lifetime. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;
const CSRF_COOKIE = 'oauth_csrf';
const FAILED_SIGN_IN_PAUSE_MS = 1000;
const MAX_INPUT = 1024;

export interface AuthorizeDeps {
  readonly oauth: OAuthStore;
  readonly accounts: AccountStore;
  /** How long a failed sign-in waits before its answer (a timer: other requests go on). */
  readonly failedSignInPause?: (ms: number) => Promise<void>;
  /** Attempts per account name (none: RATE_LIMITS=off). Never the webmail's lock: app sign-in does not lock. */
  readonly signInThrottle?: AccountSignInThrottle;
  /** Where an approval is recorded (AppAuthorized, the account's story); none: not recorded. */
  readonly accountLog?: AccountLog;
}

function sendHtml(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  // No scripts at all; never framed (clickjacking the Authorize button).
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.set('X-Frame-Options', 'DENY');
  ctx.body = body;
}

/** Double-submit: the form's token must equal the cookie set with the page, which another site cannot read or set. */
function csrfToken(ctx: Context): string {
  const existing = ctx.cookies.get(CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  ctx.cookies.set(CSRF_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/oauth', secure: ctx.secure, overwrite: true });
  return token;
}

function csrfMatches(ctx: Context, sent: unknown): boolean {
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  if (!cookie || typeof sent !== 'string' || sent.length !== cookie.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(cookie));
}

/** Unknown client or redirect URI: shown here. Anything else: sent to the app (or shown, for oob). */
function answerUnusable(ctx: Context, checked: Exclude<Checked, { kind: 'ok' }>): void {
  if (checked.kind === 'fatal') return sendHtml(ctx, 400, errorPage('An error has occurred', describe(checked.error)));
  const target = redirectTarget(checked.redirectUri, { error: checked.error, error_description: describe(checked.error) }, checked.state);
  if (target === null) return sendHtml(ctx, 400, errorPage('An error has occurred', describe(checked.error)));
  ctx.redirect(target);
}

/** Devise's one answer for an unknown name and a wrong password alike, so neither tells who exists. */
const SIGN_IN_FAILED = 'Invalid username or password.';

/** The account, or null: unknown, or the wrong password (the same work either way, so timing does not tell). */
async function signIn(accounts: AccountStore, username: string, password: string): Promise<Account | null> {
  const found = username === '' ? null : await accounts.findAccount(username);
  // findAccount also takes an id; only a username signs in.
  const account = found && found.username.toLowerCase() === username.toLowerCase() ? found : null;
  const hash = account ? await accounts.passwordHash(account.id) : null;
  const valid = hash ? await verifyPassword(password, hash) : await verifyAgainstNothing(password);
  return account && valid ? account : null;
}

/** GET /oauth/authorize shows sign-in and consent; POST /oauth/authorize decides. */
export function oauthAuthorizeRoutes({ oauth, accounts, signInThrottle, accountLog, failedSignInPause = (ms) => delay(ms) }: AuthorizeDeps): Router {
  const router = new Router();
  // Only where attempts are counted: the cookie exists to spend a budget other than the name's.
  const devices = signInThrottle ? new DeviceCookies(() => oauth.deviceCookieKey()) : null;
  const check = async (params: Record<string, unknown>) => {
    const clientId = typeof params.client_id === 'string' ? params.client_id : '';
    return checkAuthorization(clientId === '' ? null : await oauth.findApp(clientId), params);
  };
  router.get('/oauth/authorize', requestParams(), async (ctx) => {
    const checked = await check(paramsOf(ctx));
    if (checked.kind !== 'ok') return answerUnusable(ctx, checked);
    sendHtml(ctx, 200, consentPage(checked.app, checked.page, checked.scopes, csrfToken(ctx), null, ''));
  });
  router.post('/oauth/authorize', requestParams(), async (ctx) => {
    const params = paramsOf(ctx);
    if (!csrfMatches(ctx, params.authenticity_token)) {
      return sendHtml(ctx, 422, errorPage('The form has expired', 'Go back to the app and sign in again.'));
    }
    const checked = await check(params);
    if (checked.kind !== 'ok') return answerUnusable(ctx, checked);
    const { app, redirectUri, state, scopes, page } = checked;
    if (params.decision !== 'approve') {
      return answerUnusable(ctx, { kind: 'redirect-error', error: 'access_denied', app, redirectUri, state });
    }
    const username = typeof params.username === 'string' ? params.username.trim().slice(0, MAX_INPUT) : '';
    const password = typeof params.password === 'string' && params.password.length <= MAX_INPUT ? params.password : '';
    // Counted before the password is checked, so past the budget no guess costs a hash or is tried. A browser
    // that signed this name in before spends its own budget, so strangers spending the name's cannot lock it out.
    const device = devices ? await devices.recognise(ctx, username) : null;
    const verdict = !signInThrottle
      ? { allowed: true as const }
      : device !== null
        ? await signInThrottle.attemptFromDevice(device)
        : await signInThrottle.attempt(username);
    if (!verdict.allowed) return answerThrottled(ctx, verdict, signInThrottle?.now());
    const account = await signIn(accounts, username, password);
    // Any wrong password, cookie or not, gets the one answer below: the cookie is neither set nor cleared.
    if (account === null) {
      await failedSignInPause(FAILED_SIGN_IN_PAUSE_MS);
      return sendHtml(ctx, 401, consentPage(app, page, scopes, csrfToken(ctx), SIGN_IN_FAILED, username));
    }
    // Before the code is made: a key the store cannot give now is a 503 with nothing granted or recorded.
    await devices?.issue(ctx, account.username, device);
    const code = await oauth.createCode({
      appId: app.id,
      accountId: account.id,
      redirectUri,
      scopes,
      codeChallenge: page.code_challenge === '' ? null : page.code_challenge,
      codeChallengeMethod: page.code_challenge === '' ? null : page.code_challenge_method,
      expiresAt: new Date(Date.now() + CODE_LIFETIME_MS),
    });
    // Recorded before the code leaves: a code the log does not show is never handed over (and expires unused).
    await accountLog?.record(
      {
        type: 'AppAuthorized',
        data: {
          accountId: account.id,
          appId: app.id,
          clientId: app.clientId,
          appName: app.name,
          scopes,
          clientAddress: clientAddress(ctx),
          authorizedAt: new Date().toISOString(),
          actor: { kind: 'user', accountId: account.id },
        },
      },
      { requestId: String(ctx.state.requestId), source: 'oauth' },
    );
    const target = redirectTarget(redirectUri, { code }, state);
    if (target === null) return sendHtml(ctx, 200, codePage(app, code));
    ctx.redirect(target);
  });
  return router;
}
