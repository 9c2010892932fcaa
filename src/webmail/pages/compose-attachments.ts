import { UPLOAD_LIMITS } from '../actions/upload-limits.ts';
import type { ComposeAttachment } from '../sessions/compose-store.ts';
import { html, type SafeHtml } from './html.ts';
import { size } from './message-page.ts';
import { TEXTS } from './ui-texts.ts';

/** One uploaded file, with its own small remove form (forms cannot nest, so it sits outside the compose form). */
export function attachmentItem(file: ComposeAttachment, composeId: string, token: string): SafeHtml {
  return html`<li id="rcmfile${file.id}"><span class="attachment-name">${file.filename}</span> <span class="attachment-size">(${size(file.size)})</span>
<form class="remove-attachment" method="post" action="/webmail/?_task=mail&amp;_action=remove-attachment">
<input type="hidden" name="_token" value="${token}"><input type="hidden" name="_id" value="${composeId}"><input type="hidden" name="_file" value="rcmfile${file.id}">
<button type="submit" class="secondary" aria-label="Remove ${file.filename}">Remove</button></form></li>
`;
}

/**
 * The compose ID's files and the upload form (Roundcube's attachment list and upload dialog), its limits
 * written out. The `_token` field comes before the file input, so the upload can check it before any file.
 */
export function composeAttachments(files: readonly ComposeAttachment[], composeId: string, token: string): SafeHtml {
  const limit = `${TEXTS.maxUploadSize(size(UPLOAD_LIMITS.fileBytes))} At most ${size(UPLOAD_LIMITS.totalBytes)} and ${UPLOAD_LIMITS.files} files in all.`;
  return html`<section class="compose-attachments" aria-labelledby="attachments-heading">
<h2 id="attachments-heading">Attachments</h2>
<ul id="attachment-list">
${files.map((file) => attachmentItem(file, composeId, token))}</ul>
<form id="upload-form" method="post" enctype="multipart/form-data" action="/webmail/?_task=mail&amp;_action=upload&amp;_id=${composeId}">
<input type="hidden" name="_token" value="${token}">
<label for="upload-input">Add files</label>
<input id="upload-input" type="file" name="_attachments[]" multiple aria-describedby="upload-limit">
<button type="submit" id="upload-button" class="secondary">Attach</button>
<p class="hint" id="upload-limit">${limit}</p>
</form>
</section>
`;
}
