import type { Context, Next } from 'koa';
import { VERSION } from '../shared/version.ts';

// What a newcomer's browser finds at the root: what this is and where to go, instead of a JSON 404.
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>content-filters</title></head>
<body>
<h1>content-filters ${VERSION}</h1>
<p>A Mastodon-compatible content-filters service. This address serves:</p>
<ul>
<li><code>/api/v2/filters</code> and <code>/api/v1/filters</code>: the filters API (a bearer token with <code>read:filters</code> or <code>write:filters</code>)</li>
<li><a href="/webmail/">/webmail/</a>: the webmail</li>
<li><a href="/health">/health</a>, <a href="/health/live">/health/live</a>, <a href="/health/ready">/health/ready</a> and <a href="/metrics">/metrics</a>: for operators</li>
</ul>
<p>The documentation is in the repository: <code>README.md</code> and <code>docs/</code> (<code>docs/api.md</code>, <code>docs/operations.md</code>, ...).</p>
</body>
</html>
`;

/** GET / (and HEAD /): a small page; every other path goes on. */
export async function welcomePage(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
    await next();
    return;
  }
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Content-Security-Policy', "default-src 'none'");
  ctx.body = PAGE;
}
