import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/** Every request gets an id (the caller's X-Request-Id when sane), echoed back and stored in event metadata. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const given = ctx.get('x-request-id');
  const id = ACCEPTABLE.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
}
