import type { Context } from 'koa';
import { clientAddress as addressOf } from '../shared/client-address.ts';
import type { LoggedRequest } from './logs/error-log.ts';
import type { WebmailSession } from './sessions/session-store.ts';

export const SESSION_COOKIE = 'roundcube_sessid';
export const AUTH_COOKIE = 'roundcube_sessauth';
export const WEBMAIL_PATH = '/webmail/';

/** Where an input may come from, like Roundcube's INPUT_GET / INPUT_POST / INPUT_GPC. */
export type InputSource = 'GET' | 'POST' | 'GET_POST';

/** One webmail request: its parsed query and form body, and the session it belongs to. */
export type WebmailRequest = {
  readonly ctx: Context;
  readonly method: string;
  readonly query: URLSearchParams;
  readonly body: ReadonlyMap<string, string>;
  readonly task: string;
  readonly action: string;
  /** An XHR: it carries the X-Roundcube-Request header (or 1.6's `_remote=1`). */
  readonly isAjax: boolean;
  /** Did the browser send a session cookie at all? */
  readonly hadSessionCookie: boolean;
  session: WebmailSession | null;
};

export function input(request: WebmailRequest, name: string, source: InputSource = 'GET_POST'): string | undefined {
  const fromQuery = source !== 'POST' ? (request.query.get(name) ?? undefined) : undefined;
  const fromBody = source !== 'GET' ? request.body.get(name) : undefined;
  return fromQuery ?? fromBody;
}

/** The client's address as fail2ban should see it (IPv4 without the `::ffff:` mapping). */
export function clientAddress(request: WebmailRequest): string {
  return addressOf(request.ctx);
}

/** The request as the errors log prints it. */
export function loggedRequest(request: WebmailRequest): LoggedRequest {
  return {
    method: request.method,
    uri: request.ctx.originalUrl,
    sessionId: request.session?.id,
    bodyTask: request.body.get('_task'),
    bodyAction: request.body.get('_action'),
  };
}

/** Fields a form may repeat (the list's checkboxes): their strings are joined with commas, Roundcube's `_uid=1,2,3`. */
const LIST_FIELDS = new Set(['_uid']);

/** Turns a parsed form body (koa-body/qs output) into plain string fields; nested or repeated ones keep their first string, but for LIST_FIELDS. */
export function formFields(body: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return fields;
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value) && LIST_FIELDS.has(name)) {
      fields.set(name, value.filter((entry): entry is string => typeof entry === 'string').join(','));
      continue;
    }
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields.set(name, first);
  }
  return fields;
}
