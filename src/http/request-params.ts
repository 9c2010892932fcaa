import type { Context, Middleware, Next } from 'koa';
import { HttpMethodEnum, koaBody, type KoaBodyMiddlewareOptions } from 'koa-body';
import { HttpError } from './http-errors.ts';
import { jsonParams, type JsonParams } from './json-params.ts';
import { isPrototypeKey, PARAM_LIMITS } from './param-limits.ts';
import { railsParams, type Params } from './rails-params.ts';

export interface ParamsState {
  params: Record<string, unknown>;
}

const BODY_LIMIT = '256kb';
const BODY_LIMIT_BYTES = 256 * 1024;
const FORM = 'application/x-www-form-urlencoded';

/**
 * koa-body reads and limits the body; form bodies are taken as text and parsed here with Rails'
 * bracket rules (which qs does not follow for `a[][k]`), multipart fields likewise.
 */
const bodyOptions: Partial<KoaBodyMiddlewareOptions> = {
  json: true,
  jsonStrict: true,
  jsonLimit: BODY_LIMIT,
  urlencoded: false,
  text: true,
  textTypes: [FORM],
  textLimit: BODY_LIMIT,
  multipart: false,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError: (error: Error) => {
    // co-body errors carry `status`, formidable's carry `httpCode`.
    const { status: raw, httpCode } = error as { status?: number; httpCode?: number };
    const status = raw ?? httpCode;
    throw new HttpError(status === 413 ? 413 : 400, status === 413 ? 'Request entity too large' : 'Error occurred while parsing request parameters');
  },
};
const readBody = koaBody(bodyOptions);
const BODY_METHODS = new Set<string>(bodyOptions.parsedMethods);
const noop = async () => {};

/**
 * formidable groups a multipart body's values by name, which loses the order Rails' `a[][k]` grouping
 * needs; the part names, recorded as they arrive, put the values back in order.
 */
async function multipartPairs(ctx: Context): Promise<[string, string][]> {
  const names: string[] = [];
  const readMultipart = koaBody({
    ...bodyOptions,
    multipart: true,
    formidable: {
      maxFileSize: 1,
      maxFiles: 0,
      allowEmptyFiles: true,
      maxFieldsSize: BODY_LIMIT_BYTES,
      maxFields: PARAM_LIMITS.params,
      onPart: (part, handlePart) => {
        if (part.originalFilename === null || part.originalFilename === undefined) names.push(part.name ?? '');
        handlePart(part);
      },
    },
  });
  await readMultipart(ctx, noop);
  const fields = (ctx.request.body ?? {}) as Record<string, string | string[] | undefined>;
  const taken = new Map<string, number>();
  return names.flatMap((name): [string, string][] => {
    if (isPrototypeKey(name) || !Object.hasOwn(fields, name)) return [];
    const values = fields[name];
    const index = taken.get(name) ?? 0;
    taken.set(name, index + 1);
    const value = Array.isArray(values) ? values[index] : index === 0 ? values : undefined;
    return value === undefined ? [] : [[name, value]];
  });
}

async function bodyParams(ctx: Context): Promise<Params | JsonParams> {
  if (ctx.is('multipart')) return railsParams(await multipartPairs(ctx));
  await readBody(ctx, noop);
  const body = ctx.request.body as unknown;
  if (ctx.is(FORM)) return typeof body === 'string' ? railsParams(new URLSearchParams(body)) : {};
  if (body === undefined || body === null || body === '') return {};
  return jsonParams(body);
}

/** `ctx.state.params`: query parameters overlaid with body parameters, as Rails' `params`. */
export function requestParams(): Middleware {
  return async (ctx: Context, next: Next): Promise<void> => {
    const query = railsParams(new URLSearchParams(ctx.querystring));
    // koa-body reads no body for the other methods (GET, HEAD, OPTIONS): their body parameters are none.
    const body = BODY_METHODS.has(ctx.method) ? await bodyParams(ctx) : {};
    (ctx.state as ParamsState).params = Object.assign(Object.create(null) as Record<string, unknown>, query, body);
    await next();
  };
}
