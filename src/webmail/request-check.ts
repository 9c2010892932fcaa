import { timingSafeEqual } from 'node:crypto';
import type { ErrorLog } from './logs/error-log.ts';
import { input, loggedRequest, type InputSource, type WebmailRequest } from './webmail-request.ts';

export const REQUEST_TOKEN_HEADER = 'x-roundcube-request';
export const SECURITY_CHECK_FAILED = 'Request security check failed';

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Does the request prove it comes from a page this session rendered? Either the XHR header or a
 * `_token` field from `source` must equal the session's request token; the field counts only when the
 * session cookie came with it. Unlike Roundcube there is no pass for an empty POST: every POST needs it.
 */
export function carriesRequestToken(request: WebmailRequest, source: InputSource): boolean {
  const token = request.session?.requestToken;
  if (!token) return false;
  const header = request.ctx.get(REQUEST_TOKEN_HEADER);
  if (header !== '' && same(header, token)) return true;
  const field = input(request, '_token', source);
  return request.hadSessionCookie && field !== undefined && same(field, token);
}

/**
 * The CSRF gate (Roundcube's request_security_check). A refusal is written to the errors log from
 * here, so the log names this file and line; the caller answers the request and does nothing else.
 */
export class RequestSecurity {
  constructor(private readonly errors: ErrorLog) {}

  /** For a logged-in session's POSTs (source POST) and for logout (source GET_POST). */
  check(request: WebmailRequest, source: InputSource): boolean {
    if (carriesRequestToken(request, source)) return true;
    this.errors.raise(loggedRequest(request), SECURITY_CHECK_FAILED);
    return false;
  }

  /** A login POST is valid only from a login page this session showed, with its token. */
  checkLogin(request: WebmailRequest): boolean {
    if (request.session?.loginPageShown && carriesRequestToken(request, 'POST')) return true;
    this.errors.raise(loggedRequest(request), SECURITY_CHECK_FAILED);
    return false;
  }
}
