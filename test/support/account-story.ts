import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hashSecret, splitToken } from '../../src/accounts/token-secret.ts';
import { approve, CALLBACK, codeOf, exchangeCode, registerApp, type RegisteredApp } from './oauth-flow.ts';
import { runCli } from './run-cli.ts';
import type { TestServer } from './test-server.ts';
import { WebmailClient } from './webmail-client.ts';

/** One line of `events`. */
export interface EventLine {
  readonly type: string;
  readonly stream: string;
  readonly position: string;
  readonly data: Record<string, any>;
  readonly metadata: Record<string, any>;
}

export const eventLines = (ndjson: string): EventLine[] =>
  ndjson
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLine);

/**
 * Everything secret an account's story handled: passwords, tokens and their secrets, client secrets and
 * codes, and the hashes the stores keep of them, each in the encodings a careless writer might use.
 */
export class Secrets {
  readonly all: string[] = [];

  password(value: string): string {
    this.all.push(value);
    return value;
  }

  token(value: string): string {
    const secret = splitToken(value)!.secret;
    this.all.push(value, secret, hashSecret(secret).toString('hex'), hashSecret(secret).toString('base64'), hashSecret(secret).toString('base64url'));
    return value;
  }

  secret(value: string): string {
    this.all.push(value, hashSecret(value).toString('hex'), hashSecret(value).toString('base64'), hashSecret(value).toString('base64url'));
    return value;
  }

  /** Fails naming the first secret found in `text`. */
  assertNoneIn(text: string): void {
    for (const secret of this.all) assert.ok(!text.includes(secret), `a secret (${secret.slice(0, 6)}...) is in the log`);
  }
}

/** Runs the CLI against the server's stores, failing on a non-zero exit. */
export async function cli(env: Record<string, string>, args: readonly string[], stdin?: string): Promise<string> {
  const result = await runCli(args, env, stdin);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

export const newPassword = () => randomBytes(12).toString('base64url');

/** An app that the user signs in to on the consent page, then exchanges its code for a token. */
export async function appSignIn(server: TestServer, secrets: Secrets, user: { username: string; password: string }) {
  const app: RegisteredApp = await registerApp(server, 'read write');
  secrets.secret(app.client_secret);
  const code = secrets.secret(
    codeOf(await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read write' }, user)),
  );
  const answer = await exchangeCode(server, app, code);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { app, token: secrets.token(answer.body.access_token as string) };
}

/** POST /oauth/revoke by the app that holds the token. */
export async function appRevokes(server: TestServer, app: RegisteredApp, token: string): Promise<void> {
  const answer = await server.request('POST', '/oauth/revoke', {
    form: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret, token }).toString(),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

/** A webmail login through the form; 302 when it succeeded. */
export async function webmailLogin(server: TestServer, username: string, password: string): Promise<number> {
  return (await new WebmailClient(server.url).login(username, password)).status;
}
