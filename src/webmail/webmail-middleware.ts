import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { setWebmailRoute } from '../metrics/route-label.ts';
import { AjaxResponse } from './ajax-response.ts';
import { errorPage } from './pages/error-page.ts';
import { redirect, sendPage, setCommonHeaders } from './responses.ts';
import { routeRequest } from './router.ts';
import { REQUEST_TOKEN_HEADER } from './request-check.ts';
import { resolveSession } from './sessions/session-resolver.ts';
import type { WebmailServices } from './webmail-dependencies.ts';
import type { StaticAssets } from './static-assets.ts';
import { formFields, input, loggedRequest, WEBMAIL_PATH, type WebmailRequest } from './webmail-request.ts';

const parseForm = koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '2mb' });

async function readForm(ctx: Context): Promise<Map<string, string>> {
  if (ctx.method !== 'POST') return new Map();
  await parseForm(ctx, async () => {});
  return formFields(ctx.request.body);
}

function buildRequest(ctx: Context, body: Map<string, string>, hadSessionCookie: boolean): WebmailRequest {
  const request: WebmailRequest = {
    ctx,
    method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
    query: new URLSearchParams(ctx.querystring),
    body,
    task: '',
    action: '',
    isAjax: ctx.get(REQUEST_TOKEN_HEADER) !== '' || ctx.query._remote === '1',
    hadSessionCookie,
    session: null,
  };
  const task = input(request, '_task') ?? 'mail';
  const action = input(request, '_action') ?? '';
  setWebmailRoute(ctx, task, action);
  return { ...request, task, action };
}

function failure(services: WebmailServices, request: WebmailRequest | null, ctx: Context, error: unknown): void {
  const status = (error as { status?: number }).status;
  if (status !== undefined && status >= 400 && status < 500) {
    return sendPage(ctx, status, errorPage({ title: 'Invalid request', lines: [(error as Error).message] }));
  }
  if (request) services.errors.raise(loggedRequest(request), (error as Error).message ?? String(error));
  ctx.app.emit('error', error, ctx);
  if (request?.isAjax) return new AjaxResponse('error').send(ctx, 500);
  sendPage(ctx, 500, errorPage({ title: 'Server Error', lines: ['An internal error occurred. Please try again.'] }));
}

/** Answers every request under /webmail; everything else goes on to the next middleware. */
export function webmailMiddleware(services: WebmailServices, assets: StaticAssets): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/webmail' && !ctx.path.startsWith(WEBMAIL_PATH)) {
      await next();
      return;
    }
    setCommonHeaders(ctx);
    if (ctx.path === '/webmail') return redirect(ctx, `${WEBMAIL_PATH}${ctx.search}`);
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && assets.serve(ctx)) return;
    if (ctx.path !== WEBMAIL_PATH) {
      return sendPage(
        ctx,
        404,
        errorPage({ title: 'Not found', lines: ['There is nothing at this address.'], link: { href: WEBMAIL_PATH, text: 'Go to the webmail' } }),
      );
    }
    if (!['GET', 'HEAD', 'POST'].includes(ctx.method)) {
      ctx.set('Allow', 'GET, HEAD, POST');
      return sendPage(ctx, 405, errorPage({ title: 'Method not allowed', lines: [`${ctx.method} is not used here.`] }));
    }
    let request: WebmailRequest | null = null;
    try {
      const body = await readForm(ctx);
      const resolved = await resolveSession(ctx, services.sessions);
      request = buildRequest(ctx, body, resolved.hadSessionCookie);
      request.session = resolved.session;
      await routeRequest(services, request, resolved);
    } catch (error) {
      failure(services, request, ctx, error);
    }
  };
}
