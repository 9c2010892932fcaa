import { html, type SafeHtml } from './html.ts';
import type { MailFolder } from '../mail/mailbox.ts';
import { layout, type Notice } from './layout.ts';

export type Viewer = {
  readonly address: string;
  readonly requestToken: string;
  readonly folders: readonly MailFolder[];
};

export function logoutUrl(requestToken: string): string {
  return `/webmail/?_task=logout&_token=${requestToken}`;
}

export const folderUrl = (path: string): string => `/webmail/?_task=mail&_mbox=${encodeURIComponent(path)}`;

function folderLink(folder: MailFolder, current: string | null): SafeHtml {
  const selected = folder.path === current;
  return html`<li class="${selected ? 'selected' : ''}${folder.role ? ` ${folder.role}` : ''}"><a href="${folderUrl(folder.path)}"${selected ? html` aria-current="page"` : ''}>${folder.name}</a>
<span class="unreadcount" data-folder="${folder.path}">${folder.unread > 0 ? String(folder.unread) : ''}</span></li>`;
}

/** The logged-in screen: top bar with the address and logout, folder list, then the page's own content. */
export function appFrame(options: {
  readonly viewer: Viewer;
  readonly title: string;
  readonly folder: string | null;
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
<nav class="folders" aria-label="Folders"><a class="button compose" id="compose-button" href="/webmail/?_task=mail&amp;_action=compose">Compose</a>
<ul>${viewer.folders.map((folder) => folderLink(folder, options.folder))}</ul></nav>
<main class="content">${options.content}</main>
</div>`,
  });
}
