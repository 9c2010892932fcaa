import { html, type SafeHtml } from './html.ts';
import type { Folder } from '../mail/mail-store.ts';
import { layout, type Notice } from './layout.ts';

export type Viewer = {
  readonly address: string;
  readonly requestToken: string;
  readonly unread: Readonly<Record<Folder, number>>;
};

const FOLDER_NAMES: Record<Folder, string> = { INBOX: 'Inbox', Sent: 'Sent' };

export function logoutUrl(requestToken: string): string {
  return `/webmail/?_task=logout&_token=${requestToken}`;
}

function folderLink(folder: Folder, current: Folder | null, unread: number): SafeHtml {
  return html`<li class="${folder === current ? 'selected' : ''}"><a href="/webmail/?_task=mail&amp;_mbox=${folder}">${FOLDER_NAMES[folder]}</a>
<span class="unreadcount" data-folder="${folder}">${unread > 0 ? String(unread) : ''}</span></li>`;
}

/** The logged-in screen: top bar with the address and logout, folder list, then the page's own content. */
export function appFrame(options: {
  readonly viewer: Viewer;
  readonly title: string;
  readonly folder: Folder | null;
  readonly content: SafeHtml;
  readonly notice?: Notice | undefined;
  readonly env?: Readonly<Record<string, string | number>>;
}): SafeHtml {
  const { viewer } = options;
  return layout({
    title: options.title,
    notice: options.notice,
    bodyClass: 'mail',
    env: { task: 'mail', 'request-token': viewer.requestToken, ...options.env },
    content: html`<header class="topbar">
<a class="brand" href="/webmail/?_task=mail">Webmail</a>
<span class="username">${viewer.address}</span>
<a class="logout" id="logout" href="${logoutUrl(viewer.requestToken)}">Logout</a>
</header>
<div class="columns">
<nav class="folders"><a class="button compose" id="compose-button" href="/webmail/?_task=mail&amp;_action=compose">Compose</a>
<ul>${folderLink('INBOX', options.folder, viewer.unread.INBOX)}${folderLink('Sent', options.folder, viewer.unread.Sent)}</ul></nav>
<main class="content">${options.content}</main>
</div>`,
  });
}
