import type { Context, Next } from 'koa';
import { AccountLogError } from '../accounts/account-log.ts';
import { ConflictError, NotFoundError, RuleViolation, ValidationError } from '../commands/errors.ts';
import { AppendTooLargeError } from '../events/event-store.ts';
import { WorkerNumberUnavailableError } from '../shared/ids.ts';
import { isErrorNamed } from '../shared/error-by-name.ts';
import { isStoreUnavailable } from '../shared/store-unavailable.ts';
import type { Logger } from '../shared/logger.ts';
import { redact } from '../shared/redact.ts';

/** An error whose message is meant for the client, with its status. */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const unauthorized = () => new HttpError(401, 'The access token is invalid');
export const forbidden = () => new HttpError(403, 'This action is outside the authorized scopes');

/**
 * A store that cannot be reached (named by the error: the event store, the read models, the account
 * store, the rate-limit counters ...), or no worker number to mint ids with: retrying later may work.
 */
function unavailableMessage(error: unknown): string | null {
  if (isStoreUnavailable(error)) return `Service unavailable: ${error.store} cannot be reached`;
  if (isErrorNamed(error, WorkerNumberUnavailableError)) return 'Service unavailable: this process cannot mint ids right now';
  if (isErrorNamed(error, AccountLogError)) return 'Service unavailable: the event log cannot record this now';
  return null;
}

function statusAndMessage(error: unknown): [number, string] {
  if (error instanceof HttpError) return [error.status, error.message];
  const unavailable = unavailableMessage(error);
  if (unavailable) return [503, unavailable];
  if (error instanceof ValidationError) return [422, error.message];
  if (isErrorNamed(error, AppendTooLargeError)) return [413, error.message];
  if (error instanceof RuleViolation) return [422, error.message];
  if (error instanceof NotFoundError) return [404, error.message];
  if (error instanceof ConflictError) return [409, error.message];
  const status = (error as { status?: unknown; expose?: unknown }).status;
  // Errors raised by Koa and its body parser (malformed JSON, too large, bad encoding) carry a 4xx status.
  if (typeof status === 'number' && status >= 400 && status < 500) return [status, describeClientError(status, error as Error)];
  return [500, 'Internal server error'];
}

function describeClientError(status: number, error: Error): string {
  if (status === 413) return 'Request entity too large';
  if (status === 415) return 'Unsupported media type';
  if (status === 400) return 'Error occurred while parsing request parameters';
  return error.message || 'Bad request';
}

/**
 * The outermost middleware: every failure leaves as JSON `{"error": "..."}`, and only unexpected ones are
 * logged as errors (with the request id) and answered with a generic 500, never with a stack trace.
 */
export function jsonErrors(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'Not Found');
    } catch (error) {
      // Too late for another answer: Koa ends the response and reports the error (app.on('error')).
      if (ctx.headerSent) throw error;
      const [status, message] = statusAndMessage(error);
      // An outage is logged once per request without a stack: it says nothing new each time.
      if (status === 503) {
        logger.warn({ requestId: ctx.state.requestId, error: (error as Error).message }, 'request refused: service unavailable');
        ctx.set('Retry-After', '5');
      } else if (status >= 500) logger.error({ err: error, requestId: ctx.state.requestId }, 'request failed');
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = { error: redact(message) };
    }
  };
}

/**
 * For `app.on('error')`: what Koa reports itself (an error after the answer started, or one the webmail
 * reports) goes to the JSON log like every other error; client errors only at debug level, as Koa does.
 */
export function koaErrorLogger(logger: Logger) {
  return (error: unknown, ctx?: Context): void => {
    const status = (error as { status?: unknown }).status;
    const requestId = (ctx?.state as { requestId?: string } | undefined)?.requestId;
    const fields = { err: error, requestId, method: ctx?.method, path: ctx?.path };
    if (typeof status === 'number' && status < 500) logger.debug(fields, 'request error');
    else logger.error(fields, 'request error');
  };
}
