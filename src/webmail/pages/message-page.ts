import { html, type SafeHtml } from './html.ts';
import type { StoredMessage } from '../mail/mail-store.ts';
import { appFrame, type Viewer } from './app-frame.ts';

/** One message. The body is shown as plain text, whatever markup it contains. */
export function messagePage(viewer: Viewer, message: StoredMessage): SafeHtml {
  const reply = `/webmail/?_task=mail&_action=compose&_reply_uid=${message.uid}&_mbox=${message.folder}`;
  return appFrame({
    viewer,
    title: message.subject || '(no subject)',
    folder: message.folder,
    content: html`<article class="message">
<h2 class="subject">${message.subject || '(no subject)'}</h2>
<dl class="headers">
<dt>From</dt><dd class="from">${message.from}</dd>
<dt>To</dt><dd class="to">${message.to.join(', ')}</dd>
${message.cc.length > 0 ? html`<dt>Cc</dt><dd class="cc">${message.cc.join(', ')}</dd>` : ''}
<dt>Date</dt><dd><time datetime="${message.date}">${new Date(message.date).toUTCString()}</time></dd>
</dl>
<div class="actions"><a class="button" href="${reply}">Reply</a></div>
<pre class="message-body">${message.body}</pre>
</article>`,
  });
}
