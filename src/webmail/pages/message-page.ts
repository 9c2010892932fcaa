import { html, type SafeHtml } from './html.ts';
import type { MailAttachment, MailFolder, MailMessage } from '../mail/mailbox.ts';
import { appFrame, folderUrl, type Viewer } from './app-frame.ts';

/** A size as the attachment lists show it. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function attachmentList(attachments: readonly MailAttachment[], unlisted: number): SafeHtml {
  if (attachments.length === 0) return html``;
  return html`<section class="attachments" aria-labelledby="attachments-title"><h2 id="attachments-title">Attachments</h2><ul>
${attachments.map((attachment) => html`<li><span class="filename">${attachment.filename}</span> <span class="size">(${size(attachment.size)})</span></li>`)}
</ul>${unlisted > 0 ? html`<p class="unlisted">and ${unlisted.toLocaleString('en')} more attachments</p>` : ''}</section>`;
}

export const showUrl = (folder: string, uid: number) => `/webmail/?_task=mail&_action=show&_mbox=${encodeURIComponent(folder)}&_uid=${uid}`;

/** Roundcube's "Download (.eml)" address: the original as it was delivered. */
export const originalUrl = (folder: string, uid: number) => `/webmail/?_task=mail&_action=viewsource&_mbox=${encodeURIComponent(folder)}&_uid=${uid}&_save=1`;

/** The body, or why it is not (all) there: a cut or unreadable message points to its original. */
function body(folder: MailFolder, message: MailMessage): SafeHtml {
  const download = html`<a href="${originalUrl(folder.path, message.uid)}">Download the original</a>`;
  if (message.shown.unreadable !== null) {
    return html`<div class="notice warning message-notice">This message could not be shown. ${download} to open it in another program.</div>`;
  }
  const cut = message.shown.cut
    ? html`<div class="notice warning message-notice">This message is too long to show in full: its beginning is shown below. ${download} to read all of it.</div>`
    : '';
  return html`${cut}<pre class="message-body">${message.body}</pre>`;
}

/**
 * Roundcube's mark actions, as AJAX POSTs by the page script (no script: the buttons stay hidden). Opening
 * the message marked it read, so the first offer is "unread"; each button then toggles.
 */
function markButtons(folder: MailFolder, message: MailMessage): SafeHtml {
  const button = (id: string, flag: string, label: string) =>
    html`<button type="button" id="${id}" class="secondary mark-button" hidden data-flag="${flag}" data-uid="${message.uid}" data-mbox="${folder.path}">${label}</button>`;
  return html`${button('mark-unread-button', message.seen ? 'unread' : 'read', message.seen ? 'Mark as unread' : 'Mark as read')}
${button('flag-button', message.flagged ? 'unflagged' : 'flagged', message.flagged ? 'Unflag' : 'Flag')}`;
}

/**
 * Where the message's links and forms lead: the full page keeps them in its window; in the preview pane
 * (a frame of the list page) they replace the whole list page, as Roundcube's preview frame does.
 */
type Placement = 'page' | 'pane';

/** One message's headers, actions, body and attachments. The body is plain text, whatever markup it holds. */
export function messageArticle(viewer: Viewer, folder: MailFolder, message: MailMessage, placement: Placement): SafeHtml {
  const mbox = encodeURIComponent(folder.path);
  const reply = `/webmail/?_task=mail&_action=compose&_reply_uid=${message.uid}&_mbox=${mbox}`;
  const forward = `/webmail/?_task=mail&_action=compose&_forward_uid=${message.uid}&_mbox=${mbox}`;
  const remove = `/webmail/?_task=mail&_action=delete&_mbox=${mbox}&_uid=${message.uid}`;
  const target = placement === 'pane' ? html` target="_top"` : '';
  const back =
    placement === 'page'
      ? html`<a class="back-to-list" href="${folderUrl(folder.path)}">Back to the list</a>`
      : html`<a class="open-full" href="${showUrl(folder.path, message.uid)}" target="_top">Open in full</a>`;
  return html`<article class="message">
${back}
<h1 class="subject">${message.subject || '(no subject)'}</h1>
<dl class="headers">
<dt>From</dt><dd class="from">${message.from}</dd>
<dt>To</dt><dd class="to">${message.to.join(', ')}</dd>
${message.cc.length > 0 ? html`<dt>Cc</dt><dd class="cc">${message.cc.join(', ')}</dd>` : ''}
<dt>Date</dt><dd><time datetime="${message.date}">${new Date(message.date).toUTCString()}</time></dd>
</dl>
<div class="actions">${
    folder.role === 'drafts'
      ? html`<a class="button" id="edit-draft-button" href="/webmail/?_task=mail&amp;_action=compose&amp;_draft_uid=${message.uid}"${target}>Edit draft</a>
`
      : ''
  }<a class="button" id="reply-button" href="${reply}"${target}>Reply</a>
<a class="button" id="reply-all-button" href="${reply}&amp;_reply_mode=all"${target}>Reply all</a>
<a class="button" id="forward-button" href="${forward}"${target}>Forward</a>
<a class="button" id="forward-attachment-button" href="${forward}&amp;_attachment=1"${target}>Forward as attachment</a>
${markButtons(folder, message)}
<form method="post" action="${remove}" class="inline"${target}><input type="hidden" name="_token" value="${viewer.requestToken}">
<button type="submit" id="delete-button" class="secondary">${folder.role === 'trash' ? 'Delete' : 'Move to Trash'}</button></form></div>
${body(folder, message)}
${attachmentList(message.attachments, message.shown.unlistedAttachments)}
</article>`;
}

/** One message on a page of its own (no script, a phone, or a link opened directly). */
export function messagePage(viewer: Viewer, folder: MailFolder, message: MailMessage): SafeHtml {
  return appFrame({ viewer, title: message.subject || '(no subject)', folder: folder.path, content: messageArticle(viewer, folder, message, 'page') });
}
