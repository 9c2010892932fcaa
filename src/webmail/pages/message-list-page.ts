import { html, type SafeHtml } from './html.ts';
import type { Folder, MessageHeader } from '../mail/mail-store.ts';
import { appFrame, type Viewer } from './app-frame.ts';
import type { Notice } from './layout.ts';

/** What the list shows in its first column: the sender, or in Sent the recipients. */
export function correspondentOf(message: MessageHeader): string {
  return message.folder === 'Sent' ? [...message.to, ...message.cc].join(', ') : message.from;
}

export function shortDate(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

function row(message: MessageHeader): SafeHtml {
  return html`<tr data-uid="${message.uid}" class="${message.seen ? '' : 'unread'}">
<td class="fromto">${correspondentOf(message)}</td>
<td class="subject"><a href="/webmail/?_task=mail&amp;_action=show&amp;_mbox=${message.folder}&amp;_uid=${message.uid}">${message.subject || '(no subject)'}</a></td>
<td class="date"><time datetime="${message.date}">${shortDate(message.date)}</time></td></tr>`;
}

/** A folder's messages, newest first; the script adds rows that a refresh reports. */
export function messageListPage(options: {
  readonly viewer: Viewer;
  readonly folder: Folder;
  readonly messages: readonly MessageHeader[];
  readonly refreshSeconds: number;
  readonly notice?: Notice | undefined;
}): SafeHtml {
  const { folder, messages } = options;
  return appFrame({
    viewer: options.viewer,
    title: folder === 'INBOX' ? 'Inbox' : 'Sent',
    folder,
    notice: options.notice,
    env: { mbox: folder, 'refresh-seconds': options.refreshSeconds, 'last-uid': messages[0]?.uid ?? 0 },
    content: html`<div class="listbar"><h2>${folder === 'INBOX' ? 'Inbox' : 'Sent'}</h2>
<button type="button" id="refresh-button">Refresh</button></div>
<table id="messagelist"><thead><tr><th>${folder === 'Sent' ? 'To' : 'From'}</th><th>Subject</th><th>Date</th></tr></thead>
<tbody>${messages.map(row)}</tbody></table>
<p class="empty" id="empty-list"${messages.length > 0 ? html` hidden` : ''}>This folder is empty.</p>`,
  });
}
