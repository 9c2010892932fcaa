import type { Context, Middleware, Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HttpError } from './http-errors.ts';
import { railsParams, type Params } from './rails-params.ts';

export interface ParamsState {
  params: Record<string, unknown>;
}

const BODY_LIMIT = '256kb';
const FORM = 'application/x-www-form-urlencoded';

/**
 * koa-body reads and limits the body; form bodies are taken as text and parsed here with Rails'
 * bracket rules (which qs does not follow for `a[][k]`), multipart fields likewise.
 */
const readBody = koaBody({
  json: true,
  jsonStrict: true,
  jsonLimit: BODY_LIMIT,
  urlencoded: false,
  text: true,
  textTypes: [FORM],
  textLimit: BODY_LIMIT,
  multipart: true,
  formidable: { maxFileSize: 1, maxFieldsSize: 256 * 1024, maxFiles: 0, allowEmptyFiles: true },
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError: (error: Error) => {
    // co-body errors carry `status`, formidable's carry `httpCode`.
    const { status: raw, httpCode } = error as { status?: number; httpCode?: number };
    const status = raw ?? httpCode;
    throw new HttpError(status === 413 ? 413 : 400, status === 413 ? 'Request entity too large' : 'Error occurred while parsing request parameters');
  },
});

function multipartPairs(fields: Record<string, string | string[] | undefined>): [string, string][] {
  return Object.entries(fields).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v): [string, string] => [name, v]),
  );
}

function bodyParams(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body as unknown;
  if (ctx.is(FORM)) return typeof body === 'string' ? railsParams(new URLSearchParams(body)) : {};
  if (ctx.is('multipart')) return railsParams(multipartPairs((body ?? {}) as Record<string, string | string[]>));
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Error occurred while parsing request parameters');
  return body as Record<string, unknown>;
}

/** `ctx.state.params`: query parameters overlaid with body parameters, as Rails' `params`. */
export function requestParams(): Middleware {
  return async (ctx: Context, next: Next): Promise<void> => {
    await readBody(ctx, async () => {});
    const query: Params = railsParams(new URLSearchParams(ctx.querystring));
    (ctx.state as ParamsState).params = { ...query, ...bodyParams(ctx) };
    await next();
  };
}
