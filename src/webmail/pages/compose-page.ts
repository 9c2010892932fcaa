import { html, type SafeHtml } from './html.ts';
import type { ComposeAttachment, ComposeSession } from '../sessions/compose-store.ts';
import { composeAttachments } from './compose-attachments.ts';
import { appFrame, type Viewer } from './app-frame.ts';

/**
 * The compose form. With script it is posted into the hidden `savetarget` frame (Roundcube's framed
 * send), with `_unlock` added to the URL; without, the framed answer simply replaces the page.
 */
export function composePage(viewer: Viewer, compose: ComposeSession, attachments: readonly ComposeAttachment[]): SafeHtml {
  const { defaults } = compose;
  return appFrame({
    viewer,
    title: 'Compose',
    folder: null,
    env: { 'compose-id': compose.id },
    content: html`<h1>Compose</h1>
<form id="compose-form" name="form" method="post" action="/webmail/?_task=mail&amp;_action=send&amp;_framed=1" class="composebody">
<input type="hidden" name="_token" value="${viewer.requestToken}">
<input type="hidden" name="_id" value="${compose.id}">
<div class="field"><span class="label" id="from-label">From</span><span class="from" aria-labelledby="from-label">${viewer.address}</span></div>
<div class="field recipient"><label for="_to">To</label>
<input id="_to" name="_to" type="text" value="${defaults.to}" autocomplete="off" spellcheck="false" aria-autocomplete="list" aria-controls="autocomplete-list">
<ul id="autocomplete-list" role="listbox" aria-label="Address suggestions" hidden></ul></div>
<div class="field"><label for="_cc">Cc</label><input id="_cc" name="_cc" type="text" value="${defaults.cc}" autocomplete="off" spellcheck="false"></div>
<div class="field"><label for="_subject">Subject</label><input id="_subject" name="_subject" type="text" value="${defaults.subject}" maxlength="998"></div>
${
  defaults.forwardAttachment
    ? html`<div class="field"><span class="label" id="attachment-label">Attachment</span><span class="attachment" id="forwarded-attachment" aria-labelledby="attachment-label">${defaults.forwardAttachment.filename}</span></div>
`
    : ''
}<div class="field body"><label for="_body">Message</label>
<textarea id="_body" name="_body" rows="16">
${defaults.body}</textarea></div>
<div class="formbuttons"><button type="submit" id="send-button">Send</button>
<button type="submit" id="savedraft-button" class="secondary" name="_draft" value="1">Save draft</button>
<a class="button secondary" href="/webmail/?_task=mail">Cancel</a></div>
</form>
${composeAttachments(attachments, compose.id, viewer.requestToken)}<iframe name="savetarget" id="savetarget" title="send status" hidden></iframe>`,
  });
}
