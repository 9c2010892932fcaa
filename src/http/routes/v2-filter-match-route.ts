import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AccountStore } from '../../accounts/account-store.ts';
import type { AccountMatchers } from '../../matching/account-matchers.ts';
import { BadMatchRequest, checkedMatchRequest } from '../../matching/match-request.ts';
import { recordMatch } from '../../metrics/operator-metrics.ts';
import { authenticate, requireScope } from '../authentication.ts';
import { HttpError } from '../http-errors.ts';
import { accountOf } from '../route-context.ts';

export interface FilterMatchRouteDeps {
  readonly accounts: AccountStore;
  readonly matchers: AccountMatchers;
}

/** A batch of statuses is larger than a filter form: JSON up to 1 MB, NATS's default message size. */
const readJson = koaBody({
  json: true,
  jsonStrict: true,
  jsonLimit: '1mb',
  urlencoded: false,
  text: false,
  multipart: false,
  onError: (error: Error) => {
    const status = (error as { status?: number }).status;
    throw new HttpError(status === 413 ? 413 : 400, status === 413 ? 'Request entity too large' : 'Error occurred while parsing request parameters');
  },
});

async function match(ctx: Context, deps: FilterMatchRouteDeps): Promise<void> {
  if (!ctx.is('application/json')) throw new HttpError(415, 'Unsupported media type: send the statuses as application/json');
  const started = process.hrtime.bigint();
  let statuses = 0;
  try {
    const request = checkedMatchRequest(ctx.request.body);
    statuses = request.statuses.length;
    ctx.body = await deps.matchers.match(accountOf(ctx), request);
    recordMatch('http', 'ok', statuses, started);
  } catch (error) {
    recordMatch('http', error instanceof BadMatchRequest ? 'bad_request' : 'error', statuses, started);
    if (error instanceof BadMatchRequest) throw new HttpError(422, error.message);
    throw error;
  }
}

/**
 * POST /api/v2/filters/match: the caller's own filters applied to a batch of statuses, as the NATS
 * responder does for timeline services. It only reads, so `read:filters` (or `read`) is enough.
 */
export function v2FilterMatchRoute(deps: FilterMatchRouteDeps, headers: Middleware): Router {
  const router = new Router();
  router.post('/api/v2/filters/match', headers, authenticate(deps.accounts), requireScope('read:filters'), readJson, (ctx: Context) => match(ctx, deps));
  return router;
}
