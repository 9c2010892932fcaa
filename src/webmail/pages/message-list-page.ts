import { html, type SafeHtml } from './html.ts';
import type { MailFolder, MailHeader } from '../mail/mailbox.ts';
import { appFrame, folderUrl, type Viewer } from './app-frame.ts';
import { shortDate } from './dates.ts';
import { showUrl } from './message-page.ts';
import type { Notice } from './layout.ts';
import { DEFAULT_SEARCH_FIELDS, SEARCH_FIELDS, SEARCH_LIMITS, type MailSearch } from '../mail/mail-search.ts';

const FIELD_LABELS = { subject: 'Subject', from: 'From', to: 'To', body: 'Body' } as const;

/** The query that repeats a search on another page: `_q` and one `_headers` per field, as the form sends them. */
export function searchQuery(search: MailSearch | null): string {
  if (!search) return '';
  return `&_q=${encodeURIComponent(search.text)}${search.fields.map((field) => `&_headers=${field}`).join('')}`;
}

/** Roundcube's quick search: a plain GET form, so it works without the script and the result is a page of its own. */
function searchForm(folder: MailFolder, search: MailSearch | null): SafeHtml {
  const checked = (field: (typeof SEARCH_FIELDS)[number]) => (search?.fields ?? DEFAULT_SEARCH_FIELDS).includes(field);
  return html`<form class="search" role="search" method="get" action="/webmail/">
<input type="hidden" name="_task" value="mail"><input type="hidden" name="_mbox" value="${folder.path}">
<label for="search-text" class="visually-hidden">Search in ${folder.name}</label>
<input type="search" id="search-text" name="_q" maxlength="${SEARCH_LIMITS.textChars}" value="${search?.text ?? ''}" placeholder="Search…">
<fieldset class="search-fields"><legend class="visually-hidden">Search in</legend>${SEARCH_FIELDS.map(
    (field) => html`<label><input type="checkbox" name="_headers" value="${field}"${checked(field) ? html` checked` : ''}> ${FIELD_LABELS[field]}</label> `,
  )}</fieldset>
<button type="submit">Search</button>${search ? html` <a href="${folderUrl(folder.path)}" id="reset-search">Reset search</a>` : ''}</form>`;
}

/** What the list shows in its first column: the sender, or in Sent the recipients. */
export function correspondentOf(message: MailHeader, sentFolder: boolean): string {
  return sentFolder ? [...message.to, ...message.cc].join(', ') : message.from;
}

function row(message: MailHeader, sentFolder: boolean): SafeHtml {
  const show = showUrl(message.folder, message.uid);
  const classes = [message.seen ? '' : 'unread', message.flagged ? 'flagged' : ''].filter(Boolean).join(' ');
  return html`<tr data-uid="${message.uid}" class="${classes}">
<td class="select"><input type="checkbox" name="_uid" value="${message.uid}" aria-label="Select: ${message.subject || '(no subject)'}" form="list-form"></td>
<td class="fromto">${correspondentOf(message, sentFolder)}</td>
<td class="subject"><a href="${show}">${message.subject || '(no subject)'}</a>${message.seen ? '' : html`<span class="visually-hidden"> (unread)</span>`}${message.flagged ? html`<span class="flag-mark" title="Flagged"><span aria-hidden="true"> ⚑</span><span class="visually-hidden"> (flagged)</span></span>` : ''}</td>
<td class="date"><time datetime="${message.date}">${shortDate(message.date)}</time></td></tr>`;
}

export type Paging = { readonly page: number; readonly pages: number; readonly total: number };

function pager(folder: MailFolder, paging: Paging, search: MailSearch | null): SafeHtml {
  if (paging.pages <= 1) return html``;
  const at = (page: number) => `${folderUrl(folder.path)}${searchQuery(search)}&_page=${page}`;
  return html`<nav class="pager" aria-label="Pages">
${paging.page > 1 ? html`<a href="${at(paging.page - 1)}" rel="prev">Newer</a>` : ''}
<span>Page ${paging.page} of ${paging.pages} (${paging.total} messages)</span>
${paging.page < paging.pages ? html`<a href="${at(paging.page + 1)}" rel="next">Older</a>` : ''}</nav>`;
}

/**
 * Roundcube's selection: the rows' checkboxes belong to this form, whose buttons post `_action=delete` or
 * `_action=move` with every ticked `_uid` and the request token.
 */
function selectionForm(folder: MailFolder, viewer: Viewer): SafeHtml {
  const targets = viewer.folders.filter((entry) => entry.path !== folder.path);
  return html`<form id="list-form" class="list-actions" method="post" action="/webmail/?_task=mail">
<input type="hidden" name="_token" value="${viewer.requestToken}"><input type="hidden" name="_mbox" value="${folder.path}">
<button type="submit" name="_action" value="delete" class="secondary" id="delete-selected">${folder.role === 'trash' ? 'Delete selected' : 'Move selected to Trash'}</button>
${
  targets.length > 0
    ? html`<label for="move-target">Move selected to</label> <select id="move-target" name="_target_mbox">${targets.map(
        (entry) => html`<option value="${entry.path}">${entry.name}</option>`,
      )}</select> <button type="submit" name="_action" value="move" class="secondary" id="move-selected">Move</button>`
    : ''
}</form>`;
}

/**
 * The message next to the list (Roundcube's `messagecontframe`): hidden until the page script finds the
 * screen wide enough, so without script, or on a phone, a subject opens the message as a page.
 */
const previewPane = html`<section id="preview-pane" class="preview-pane" aria-label="Message preview" hidden>
<p class="preview-empty" id="preview-empty">Select a message to read it here.</p>
<iframe id="messagecontframe" name="messagecontframe" title="Message preview" hidden></iframe></section>`;

/** A page of a folder's messages, newest first; on the first page the script adds rows a refresh reports. */
export function messageListPage(options: {
  readonly viewer: Viewer;
  readonly folder: MailFolder;
  readonly messages: readonly MailHeader[];
  readonly paging: Paging;
  readonly refreshSeconds: number;
  readonly notice?: Notice | undefined;
  /** The search these messages answer; null for the whole folder. */
  readonly search?: MailSearch | null;
}): SafeHtml {
  const { folder, messages } = options;
  const search = options.search ?? null;
  const sentFolder = folder.role === 'sent';
  // Only the first page shows the newest mail, so only it takes new rows.
  // A search's rows are not the folder's newest, and new mail may not match: it takes none.
  const lastUid = options.paging.page === 1 && !search ? (messages[0]?.uid ?? 0) : Number.MAX_SAFE_INTEGER;
  return appFrame({
    viewer: options.viewer,
    title: folder.name,
    folder: folder.path,
    notice: options.notice,
    env: { mbox: folder.path, 'refresh-seconds': options.refreshSeconds, 'last-uid': lastUid, 'sent-folder': sentFolder ? 1 : 0 },
    content: html`<div class="mail-list"><div class="listbar"><h1>${search ? html`Search results in ${folder.name}` : folder.name}</h1>
<button type="button" id="refresh-button">Refresh</button></div>
${searchForm(folder, search)}
${selectionForm(folder, options.viewer)}
<table id="messagelist"><caption class="visually-hidden">${search ? html`Messages in ${folder.name} matching “${search.text}”` : html`Messages in ${folder.name}`}, newest first</caption>
<thead><tr><th scope="col" class="select"><span class="visually-hidden">Select</span></th><th scope="col">${sentFolder ? 'To' : 'From'}</th><th scope="col">Subject</th><th scope="col">Date</th></tr></thead>
<tbody>${messages.map((message) => row(message, sentFolder))}</tbody></table>
<p class="empty" id="empty-list"${messages.length > 0 ? html` hidden` : ''}>${search ? 'No messages found.' : 'This folder is empty.'}</p>
${pager(folder, options.paging, search)}</div>
${previewPane}`,
  });
}
