import type { Context } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import { presentedToken } from '../http/authentication.ts';
import { tokenHolder, type AppTokenLookup } from '../http/token-holder.ts';
import type { ChosenRoute } from '../http/route-of.ts';
import { throttleableAddress } from './throttleable-address.ts';
import type { RequestFacts } from './throttles.ts';

export interface FactSources {
  readonly accounts: AccountStore;
  readonly appTokens?: AppTokenLookup;
  /** The route the router will run for a method and a raw path (http/route-of.ts). */
  readonly routeOf: (method: string, rawPath: string) => ChosenRoute;
}

const PAGING_PARAMS = ['page', 'min_id', 'max_id', 'since_id'];

/**
 * Rails' `params['page'].present?` on the query: the last of a repeated name, not blank; a `page[...]`
 * name is an array or a hash there, present whenever given. A form body is not read for it (that would
 * cost every request before it is counted, refused ones too).
 */
function isPagingRequest(query: URLSearchParams): boolean {
  for (const [name] of query) {
    if (PAGING_PARAMS.some((param) => name.startsWith(`${param}[`))) return true;
  }
  return PAGING_PARAMS.some((param) => {
    const values = query.getAll(param);
    return values.length > 0 && values[values.length - 1]!.trim() !== '';
  });
}

/** Whose request it is, as Mastodon's Rack::Attack::Request finds it: the token in the header or the query. */
async function identify(ctx: Context, sources: FactSources): Promise<Pick<RequestFacts, 'userId' | 'tokenId'>> {
  const token = presentedToken(ctx);
  if (token === null) return { userId: null, tokenId: null };
  // Looked up once per request: the authentication after this middleware reuses the answer.
  const holder = await tokenHolder(ctx, token, sources);
  // User and app tokens live in two stores, each with its own ids: the prefix keeps their counters apart.
  if (holder?.kind === 'user') return { userId: holder.grant.account.id, tokenId: `user-token:${holder.grant.tokenId}` };
  return { userId: null, tokenId: holder ? `app-token:${holder.appToken.tokenId}` : null };
}

/** The route the request is for, or null when no throttle could apply (no route here and not under /api). */
export function chosenRoute(ctx: Context, sources: FactSources): ChosenRoute & { readonly api: boolean } {
  const route = sources.routeOf(ctx.method, ctx.path);
  // Mastodon's `api_request?` is `path.start_with?('/api')`; the router matches without letter case, so
  // an unrouted `/API/...` is as much an API request as `/api/...`.
  const api = (route.template ?? route.path.toLowerCase()).startsWith('/api');
  return { ...route, api };
}

export async function requestFacts(ctx: Context, route: ChosenRoute & { readonly api: boolean }, sources: FactSources): Promise<RequestFacts> {
  return {
    method: ctx.method,
    route: route.template,
    api: route.api,
    ip: throttleableAddress(ctx.ip),
    // Most requests carry no query: nothing to parse.
    paging: ctx.querystring !== '' && isPagingRequest(new URLSearchParams(ctx.querystring)),
    ...(await identify(ctx, sources)),
  };
}
