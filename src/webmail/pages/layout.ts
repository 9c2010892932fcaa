import { html, type SafeHtml } from './html.ts';

export type Notice = { readonly type: 'error' | 'warning' | 'notice' | 'confirmation'; readonly text: string };

export type PageOptions = {
  readonly title: string;
  readonly content: SafeHtml;
  readonly notice?: Notice | undefined;
  /** Values the page script reads from `<body data-...>` (the request token, the folder...). */
  readonly env?: Readonly<Record<string, string | number>>;
  readonly bodyClass?: string;
};

function dataAttributes(env: Readonly<Record<string, string | number>>): SafeHtml {
  const attributes = Object.entries(env).map(([name, value]) => html` data-${name.replace(/[^a-z-]/g, '')}="${String(value)}"`);
  return html`${attributes}`;
}

/**
 * Every page: no inline script or style (the CSP forbids them), one stylesheet and one script.
 * The notice box is where the script also puts the messages it gets from the server.
 */
export function layout(options: PageOptions): SafeHtml {
  const notice = options.notice;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="content-filters webmail">
<meta name="referrer" content="same-origin">
<title>${options.title} :: Webmail</title>
<link rel="icon" href="/webmail/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/webmail/static/webmail.css">
<script src="/webmail/static/autocomplete.js" defer></script>
<script src="/webmail/static/preview-pane.js" defer></script>
<script src="/webmail/static/compose-attachments.js" defer></script>
<script src="/webmail/static/webmail.js" defer></script>
</head>
<body class="${options.bodyClass ?? ''}"${dataAttributes(options.env ?? {})}>
<div id="messagestack" role="status" aria-live="polite">${notice ? html`<div class="notice ${notice.type}">${notice.text}</div>` : ''}</div>
${options.content}
</body>
</html>
`;
}
