import type { Context, Next } from 'koa';
import { ConflictError, NotFoundError, RuleViolation, ValidationError } from '../commands/errors.ts';
import type { Logger } from '../shared/logger.ts';

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

function statusAndMessage(error: unknown): [number, string] {
  if (error instanceof HttpError) return [error.status, error.message];
  if (error instanceof ValidationError) return [422, error.message];
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
 * The first middleware: every failure leaves as JSON `{"error": "..."}`, and only unexpected ones are
 * logged as errors (with the request id) and answered with a generic 500.
 */
export function jsonErrors(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'Not Found');
    } catch (error) {
      const [status, message] = statusAndMessage(error);
      if (status >= 500) logger.error({ err: error, requestId: ctx.state.requestId }, 'request failed');
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = { error: message };
    }
  };
}
