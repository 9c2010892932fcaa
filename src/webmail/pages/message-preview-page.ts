import type { MailFolder, MailMessage } from '../mail/mailbox.ts';
import type { Viewer } from './app-frame.ts';
import { html, type SafeHtml } from './html.ts';
import { layout } from './layout.ts';
import { messageArticle } from './message-page.ts';

/** The preview frame's address: Roundcube's `_action=preview` with `_framed=1` (program/js/app.js 2709-2751). */
export const previewUrl = (folder: string, uid: number) => `/webmail/?_task=mail&_action=preview&_mbox=${encodeURIComponent(folder)}&_uid=${uid}&_framed=1`;

/**
 * One message for the list page's preview pane: the full page's article without the top bar and folders.
 * It is an ordinary page of its own (same escaping, same CSP and frame headers), loaded in a frame, so
 * nothing from the mail ever reaches the list page's document. The body's data tell the list page which
 * row was read and the folder's unread count after it, as Roundcube's `set_unread_message` (app.js 2756).
 */
export function messagePreviewPage(viewer: Viewer, folder: MailFolder, message: MailMessage): SafeHtml {
  const read = viewer.folders.find((entry) => entry.path === folder.path);
  return layout({
    title: message.subject || '(no subject)',
    bodyClass: 'mail framed',
    env: {
      task: 'mail',
      'request-token': viewer.requestToken,
      'preview-mbox': folder.path,
      'preview-uid': message.uid,
      'preview-unread': read?.unread ?? 0,
    },
    content: html`<div class="content">${messageArticle(viewer, folder, message, 'pane')}</div>`,
  });
}
