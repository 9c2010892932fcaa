import type { Context } from 'koa';

/** What a layer of @koa/router leaves in `ctx.matched`: its path template and its methods. */
interface MatchedLayer {
  readonly path: string | RegExp;
  readonly methods: readonly string[];
}

// Roundcube's tasks and the actions this webmail serves: anything else is one label, so a client
// sending random `_action` values cannot grow the metrics without bound.
const WEBMAIL_TASKS = new Set(['login', 'logout', 'mail']);
const WEBMAIL_ACTIONS = new Set(['', 'login', 'list', 'show', 'compose', 'send', 'autocomplete', 'refresh', 'keep-alive']);

/** The webmail's `_task`/`_action` as a bounded label, e.g. `webmail mail/refresh` (an unknown one is `other`). */
export function webmailRoute(task: string, action: string): string {
  const known = (value: string, set: ReadonlySet<string>) => (set.has(value) ? value : 'other');
  return `webmail ${known(task, WEBMAIL_TASKS)}/${known(action, WEBMAIL_ACTIONS)}`;
}

/** Set by the webmail once it has read a request's `_task` and `_action` (from the query or the form). */
export const setWebmailRoute = (ctx: Context, task: string, action: string): void => {
  (ctx.state as { route?: string }).route = webmailRoute(task, action);
};

/**
 * The route template a request matched (`/api/v2/filters/:id`), whatever answered it: a 401 or 403 of
 * the authentication that runs before the route's own handler is labelled with the route it was for.
 * Router-level middleware layers have no methods; the route is the last matching layer that has one.
 */
export function routeLabel(ctx: Context): string {
  const set = (ctx.state as { route?: unknown }).route;
  if (typeof set === 'string') return set;
  const matched = (ctx as { matched?: readonly MatchedLayer[] }).matched ?? [];
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
  for (let i = matched.length - 1; i >= 0; i -= 1) {
    const layer = matched[i]!;
    if (layer.methods.includes(method) && typeof layer.path === 'string') return layer.path;
  }
  if (ctx.path === '/' && ctx.status === 200) return '/';
  if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') return 'cors preflight';
  if (ctx.path === '/webmail' || ctx.path.startsWith('/webmail/')) return 'webmail static';
  return 'unmatched';
}
