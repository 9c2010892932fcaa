import { html, type SafeHtml } from './html.ts';

export type FramedResult = {
  /** The `_unlock` id the compose screen sent, so it can hide its "Sending..." notice. */
  readonly unlock: string;
  readonly type: 'error' | 'confirmation';
  readonly message: string;
  /** Where the compose screen goes next (after a successful send). */
  readonly next?: string | undefined;
};

/**
 * The small page a framed send answers with (Roundcube: `parent.rcmail.iframe_loaded(..)` and
 * `display_message(..)`). The compose screen reads the data attributes from its hidden frame; without
 * script the page still reads as a message with a way back.
 */
export function framedResultPage(result: FramedResult): SafeHtml {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="content-filters webmail"><title>Webmail</title>
<link rel="icon" href="/webmail/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/webmail/static/webmail.css"></head>
<body class="framed"><main id="frame-result" data-unlock="${result.unlock}" data-type="${result.type}" data-message="${result.message}" data-next="${result.next ?? ''}">
<div class="notice ${result.type}">${result.message}</div>
<p>${result.next ? html`<a href="${result.next}">Back to the mailbox</a>` : "Use your browser's Back button to correct the message."}</p>
</main></body></html>
`;
}
