import { html, type SafeHtml } from './html.ts';
import { TEXTS } from './ui-texts.ts';
import { layout } from './layout.ts';

export type ErrorPageOptions = {
  readonly title: string;
  readonly lines: readonly string[];
  readonly link?: { readonly href: string; readonly text: string } | undefined;
  readonly footer?: string | undefined;
};

/** Roundcube's error box: an upper-cased title, the explanation with line breaks, then a hint or a link. */
export function errorPage(options: ErrorPageOptions): SafeHtml {
  const text = options.lines.map((line, i) => html`${i > 0 ? html`<br />` : ''}${line}`);
  return layout({
    title: options.title,
    bodyClass: 'error',
    content: html`<main class="boxerror"><h3 class="error-title">${options.title.toUpperCase()}</h3><div class="error-text">${text}</div>
${options.link ? html`<p><a href="${options.link.href}">${options.link.text}</a></p>` : ''}${options.footer ? html`<p>${options.footer}</p>` : ''}</main>`,
  });
}

/** The way out is a fresh start: the login page (which shows the mailbox again to a signed-in session). */
export const requestCheckFailedPage = (): SafeHtml =>
  errorPage({
    title: TEXTS.requestCheckFailed,
    lines: TEXTS.csrfExplanation,
    link: { href: '/webmail/?_task=login', text: TEXTS.backToLogin },
    footer: TEXTS.contactAdmin,
  });

export const composeSessionErrorPage = (): SafeHtml =>
  errorPage({
    title: TEXTS.composeSessionError,
    lines: [TEXTS.composeSessionNotFound],
    link: { href: '/webmail/?_task=mail&_action=compose', text: TEXTS.composeAgain },
  });
