import { html, type SafeHtml } from './html.ts';
import type { MailFolder, MailHeader } from '../mail/mailbox.ts';
import { appFrame, folderUrl, type Viewer } from './app-frame.ts';
import { shortDate } from './dates.ts';
import type { Notice } from './layout.ts';

/** What the list shows in its first column: the sender, or in Sent the recipients. */
export function correspondentOf(message: MailHeader, sentFolder: boolean): string {
  return sentFolder ? [...message.to, ...message.cc].join(', ') : message.from;
}

function row(message: MailHeader, sentFolder: boolean): SafeHtml {
  const show = `/webmail/?_task=mail&_action=show&_mbox=${encodeURIComponent(message.folder)}&_uid=${message.uid}`;
  const classes = [message.seen ? '' : 'unread', message.flagged ? 'flagged' : ''].filter(Boolean).join(' ');
  return html`<tr data-uid="${message.uid}" class="${classes}">
<td class="fromto">${correspondentOf(message, sentFolder)}</td>
<td class="subject"><a href="${show}">${message.subject || '(no subject)'}</a>${message.seen ? '' : html`<span class="visually-hidden"> (unread)</span>`}${message.flagged ? html`<span class="flag-mark" title="Flagged"><span aria-hidden="true"> ⚑</span><span class="visually-hidden"> (flagged)</span></span>` : ''}</td>
<td class="date"><time datetime="${message.date}">${shortDate(message.date)}</time></td></tr>`;
}

export type Paging = { readonly page: number; readonly pages: number; readonly total: number };

function pager(folder: MailFolder, paging: Paging): SafeHtml {
  if (paging.pages <= 1) return html``;
  const at = (page: number) => `${folderUrl(folder.path)}&_page=${page}`;
  return html`<nav class="pager" aria-label="Pages">
${paging.page > 1 ? html`<a href="${at(paging.page - 1)}" rel="prev">Newer</a>` : ''}
<span>Page ${paging.page} of ${paging.pages} (${paging.total} messages)</span>
${paging.page < paging.pages ? html`<a href="${at(paging.page + 1)}" rel="next">Older</a>` : ''}</nav>`;
}

/** A page of a folder's messages, newest first; on the first page the script adds rows a refresh reports. */
export function messageListPage(options: {
  readonly viewer: Viewer;
  readonly folder: MailFolder;
  readonly messages: readonly MailHeader[];
  readonly paging: Paging;
  readonly refreshSeconds: number;
  readonly notice?: Notice | undefined;
}): SafeHtml {
  const { folder, messages } = options;
  const sentFolder = folder.role === 'sent';
  // Only the first page shows the newest mail, so only it takes new rows.
  const lastUid = options.paging.page === 1 ? (messages[0]?.uid ?? 0) : Number.MAX_SAFE_INTEGER;
  return appFrame({
    viewer: options.viewer,
    title: folder.name,
    folder: folder.path,
    notice: options.notice,
    env: { mbox: folder.path, 'refresh-seconds': options.refreshSeconds, 'last-uid': lastUid, 'sent-folder': sentFolder ? 1 : 0 },
    content: html`<div class="listbar"><h1>${folder.name}</h1>
<button type="button" id="refresh-button">Refresh</button></div>
<table id="messagelist"><caption class="visually-hidden">Messages in ${folder.name}, newest first</caption>
<thead><tr><th scope="col">${sentFolder ? 'To' : 'From'}</th><th scope="col">Subject</th><th scope="col">Date</th></tr></thead>
<tbody>${messages.map((message) => row(message, sentFolder))}</tbody></table>
<p class="empty" id="empty-list"${messages.length > 0 ? html` hidden` : ''}>This folder is empty.</p>
${pager(folder, options.paging)}`,
  });
}
