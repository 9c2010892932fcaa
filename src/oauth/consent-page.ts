import { html, SafeHtml } from '../webmail/pages/html.ts';
import type { OAuthApp } from './oauth-store.ts';

/** The authorization request as the page carries it from GET to POST, in hidden fields. */
export interface PageRequest {
  readonly response_type: 'code';
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly scope: string;
  readonly state: string;
  readonly code_challenge: string;
  readonly code_challenge_method: string;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1b1b;background:#f3f3f6}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.35rem;margin:0 0 1rem}
p,ul{margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password]{width:100%;padding:.6rem;font:inherit;border:1px solid #6b6b76;border-radius:4px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
button{flex:1 1 8rem;min-height:2.75rem;padding:.6rem 1rem;font:inherit;font-weight:600;border-radius:4px;border:2px solid #3a3aa8;cursor:pointer}
.approve{background:#3a3aa8;color:#fff}
.deny{background:#fff;color:#3a3aa8}
:focus-visible{outline:3px solid #c2410c;outline-offset:2px}
.error{color:#a4161a;font-weight:600}
code{display:block;padding:.75rem;background:#f3f3f6;border-radius:4px;word-break:break-all;font-size:1.1rem}
`;

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>`.text;
}

/** Sign-in and consent in one form: the app, what it asks for, the account's name and password. */
export function consentPage(app: OAuthApp, request: PageRequest, scopes: readonly string[], csrf: string, error: string | null, username: string): string {
  const hidden = Object.entries(request as unknown as Record<string, string>).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return page(
    `Authorize ${app.name}`,
    html`<h1>Authorize ${app.name}?</h1>
<p>${app.name} asks for access to your account with these permissions:</p>
<ul>${scopes.map((s) => html`<li>${s}</li>`)}</ul>
${error ? html`<p class="error" role="alert" id="error">${error}</p>` : ''}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="authenticity_token" value="${csrf}">
${hidden}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}"${error ? html` aria-describedby="error"` : ''}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit" class="approve" name="decision" value="approve">Authorize</button>
<button type="submit" class="deny" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

/** For `urn:ietf:wg:oauth:2.0:oob`: the code, to copy into the app. */
export function codePage(app: OAuthApp, code: string): string {
  return page(
    'Authorization code',
    html`<h1>Authorization code</h1>
<p>Copy this code and paste it into ${app.name}:</p>
<code>${code}</code>`,
  );
}

/** A request that cannot be sent back to the app (an unknown client, a redirect URI it did not register). */
export function errorPage(title: string, description: string): string {
  return page(title, html`<h1>${title}</h1><p>${description}</p>`);
}
