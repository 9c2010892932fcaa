import type Router from '@koa/router';
import { BoundedCache } from '../shared/bounded-cache.ts';

/** The route a request is for: its method and the template the router will run, e.g. `/api/v2/filters/:id`. */
export interface ChosenRoute {
  readonly method: string;
  /** The template of the route the router will run; null when no route takes the path. */
  readonly template: string | null;
  /** The path as every spelling of it is counted: see canonicalPath. */
  readonly path: string;
}

/** Distinct method and path pairs whose route is remembered (a path with an id is one pair per id). */
const CHOSEN_ROUTES_KEPT = 10_000;

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * One spelling for every way of writing a path: percent-encoded unreserved characters decoded (RFC 3986
 * §6.2.2.2; `%2F` stays, it is no separator), the remaining escapes in capitals, runs of slashes squeezed
 * and a trailing slash dropped (as Rails' normalize_path, which rack-attack applies before its throttles).
 * Letter case is left to the router, which matches without it.
 */
export function canonicalPath(raw: string): string {
  const decoded = raw.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  const squeezed = `/${decoded}`.replace(/\/{2,}/g, '/');
  return squeezed.length > 1 && squeezed.endsWith('/') ? squeezed.slice(0, -1) : squeezed;
}

/**
 * Asks the routers, in the order they are mounted, which route would run the request, so that whatever
 * judges a request by its route (the throttles) judges the route and never the spelling of the path.
 */
export function routeChooser(routers: readonly Router[]): (method: string, rawPath: string) => ChosenRoute {
  const choose = (method: string, rawPath: string): ChosenRoute => {
    const path = canonicalPath(rawPath);
    for (const router of routers) {
      const matched = router.match(path, method);
      if (!matched.route) continue;
      const layer = matched.pathAndMethod.find((candidate) => candidate.methods.length > 0);
      if (layer) return { method, template: String(layer.path), path };
    }
    return { method, template: null, path };
  };
  // The routers never change, so the answer for a method and a path never does: a busy path (a listing
  // polled by every client) is matched once, not on every request. The least recently asked go first.
  const chosen = new BoundedCache<string, ChosenRoute>({ entries: CHOSEN_ROUTES_KEPT, weight: CHOSEN_ROUTES_KEPT });
  return (method, rawPath) => {
    const key = `${method} ${rawPath}`;
    let route = chosen.get(key);
    if (!route) {
      route = choose(method, rawPath);
      chosen.set(key, route, 1);
    }
    return route;
  };
}
