import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { hashPassword } from '../../src/accounts/passwords.ts';
import type { ApiResponse, TestAccount, TestServer } from './test-server.ts';

export const CALLBACK = 'https://app.example/callback';

export interface RegisteredApp {
  readonly id: string;
  readonly client_id: string;
  readonly client_secret: string;
}

/** An account that can sign in, with a fresh password. */
export async function accountWithPassword(server: TestServer): Promise<TestAccount & { password: string }> {
  const account = await server.account();
  const password = randomBytes(12).toString('base64url');
  await server.service.stores.accounts.setPasswordHash(account.id, await hashPassword(password));
  return { ...account, password };
}

export async function registerApp(server: TestServer, scopes = 'read write', redirectUris = CALLBACK): Promise<RegisteredApp> {
  const answer = await server.request('POST', '/api/v1/apps', { json: { client_name: 'Test app', redirect_uris: redirectUris, scopes } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as RegisteredApp;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The consent page as a browser holds it: its CSRF cookie and the hidden fields of its form. */
export interface ConsentForm {
  readonly cookie: string;
  readonly fields: URLSearchParams;
}

export async function consentForm(server: TestServer, query: Record<string, string>, headers: Record<string, string> = {}): Promise<ConsentForm> {
  const page = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query)}`, { headers });
  assert.equal(page.status, 200, await page.clone().text());
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const body = await page.text();
  const fields = new URLSearchParams();
  for (const match of body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
    fields.set(
      match[1]!,
      match[2]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    );
  }
  return { cookie, fields };
}

/** Submits a consent form with these credentials, as a browser would. */
export function submitConsent(
  server: TestServer,
  form: ConsentForm,
  account: { username: string; password: string },
  decision = 'approve',
  headers: Record<string, string> = {},
): Promise<Response> {
  const fields = new URLSearchParams(form.fields);
  fields.set('username', account.username);
  fields.set('password', account.password);
  fields.set('decision', decision);
  return fetch(`${server.url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
}

/** The consent page's form, fetched and submitted as a browser would. */
export async function approve(
  server: TestServer,
  query: Record<string, string>,
  account: { username: string; password: string },
  decision = 'approve',
  headers: Record<string, string> = {},
): Promise<Response> {
  return submitConsent(server, await consentForm(server, query, headers), account, decision, headers);
}

/** The code in the redirect an approval answered with. */
export function codeOf(answer: Response): string {
  assert.equal(answer.status, 302);
  const code = new URL(answer.headers.get('location')!).searchParams.get('code');
  assert.ok(code);
  return code;
}

/** POST /oauth/token exchanging `code` as the app (`extra` adds or replaces fields: code_verifier, a wrong redirect_uri). */
export function exchangeCode(
  server: TestServer,
  app: { client_id: string; client_secret: string },
  code: string,
  extra: Record<string, string> = {},
): Promise<ApiResponse> {
  return server.request('POST', '/oauth/token', {
    form: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: CALLBACK,
      code,
      ...extra,
    }).toString(),
  });
}

/** The whole authorization-code flow: `account` approves `app` on the consent page, and the code is exchanged for its token. */
export async function authorizationCodeToken(
  server: TestServer,
  app: RegisteredApp,
  account: { username: string; password: string },
  scope = 'read write',
): Promise<string> {
  const code = codeOf(await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope }, account));
  const token = await exchangeCode(server, app, code);
  assert.equal(token.status, 200, JSON.stringify(token.body));
  return token.body.access_token as string;
}

/** POST /oauth/token with the client_credentials grant, as the app. */
export function clientCredentials(server: TestServer, app: { client_id: string; client_secret: string }, scope?: string): Promise<ApiResponse> {
  return server.request('POST', '/oauth/token', {
    form: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      ...(scope ? { scope } : {}),
    }).toString(),
  });
}

/** An app token by the client_credentials grant. */
export async function clientCredentialsToken(server: TestServer, app: { client_id: string; client_secret: string }, scope?: string): Promise<string> {
  const token = await clientCredentials(server, app, scope);
  assert.equal(token.status, 200, JSON.stringify(token.body));
  return token.body.access_token as string;
}
