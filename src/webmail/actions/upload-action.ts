import { AjaxResponse, unlockId } from '../ajax-response.ts';
import { errorPage } from '../pages/error-page.ts';
import { size } from '../pages/message-page.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { carriesRequestToken } from '../request-check.ts';
import { sendForbidden, sendPage } from '../responses.ts';
import type { ComposeAttachment } from '../sessions/compose-store.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { LoggedInSession } from './logged-in-session.ts';
import { dropRestOfBody, readUpload, type UploadRefusal } from './multipart-upload.ts';
import { UPLOAD_LIMITS } from './upload-limits.ts';

const composeUri = (id: string) => `/webmail/?_task=mail&_action=compose&_id=${encodeURIComponent(id)}`;

/** The list entry the page script adds: Roundcube's `rcmfile<id>`, the name and its size. */
export const attachmentEntry = (file: ComposeAttachment) => ({ id: `rcmfile${file.id}`, name: file.filename, size: size(file.size), type: file.contentType });

const REFUSALS: Record<Exclude<UploadRefusal, 'forbidden'>, { status: number; message: string }> = {
  tooLarge: { status: 413, message: TEXTS.fileSizeError(size(UPLOAD_LIMITS.fileBytes)) },
  tooMany: { status: 413, message: TEXTS.tooManyFiles(UPLOAD_LIMITS.files) },
  malformed: { status: 400, message: TEXTS.fileUploadError },
};

function refuse(request: WebmailRequest, composeId: string, status: number, message: string): void {
  if (request.isAjax) {
    return new AjaxResponse('upload', unlockId(input(request, '_unlock', 'GET')))
      .command('display_message', message, 'error', 0)
      .command('remove_from_attachment_list', input(request, '_uploadid', 'GET') ?? '')
      .send(request.ctx, status);
  }
  sendPage(request.ctx, status, errorPage({ title: 'Upload failed', lines: [message], link: { href: composeUri(composeId), text: 'Back to the message' } }));
}

/**
 * POST ?_task=mail&_action=upload&_id=<compose ID>[&_uploadid=…&_unlock=…], a `multipart/form-data` body
 * with `_attachments[]` files (Roundcube's attachment_upload.php). The request token is the XHR header, or
 * a `_token` field before the first file (the form without script); a wrong one is the 403 with its log
 * line and nothing is kept. An unknown compose ID is Roundcube's "Invalid session var!". Each file is held
 * to UPLOAD_LIMITS while it arrives; the compose ID's room (files, bytes) is checked as it is added.
 */
export async function uploadAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const composeId = input(request, '_id', 'GET') ?? '';
  let checked = carriesRequestToken(request, 'POST') ? true : null;
  const check = (fields: ReadonlyMap<string, string>) => (checked ??= services.security.check({ ...request, body: fields }, 'POST'));
  const upload = await readUpload(request.ctx, check);
  if ('refused' in upload) {
    await dropRestOfBody(request.ctx);
    if (upload.refused === 'forbidden' || !check(new Map())) return sendForbidden(request);
    return refuse(request, composeId, REFUSALS[upload.refused].status, REFUSALS[upload.refused].message);
  }
  if (!check(upload.fields)) return sendForbidden(request);
  if (!(await services.compose.find(session.id, composeId))) return refuse(request, composeId, 400, TEXTS.invalidSessionVar);
  const added: ComposeAttachment[] = [];
  for (const file of upload.files) {
    const kept = await services.compose.attach(session.id, composeId, file, UPLOAD_LIMITS);
    if (kept === null) return refuse(request, composeId, 400, TEXTS.invalidSessionVar);
    if (kept === 'full') {
      const full = (await services.compose.attachments(session.id, composeId)).length >= UPLOAD_LIMITS.files;
      return refuse(request, composeId, 413, full ? TEXTS.tooManyFiles(UPLOAD_LIMITS.files) : TEXTS.totalSizeError(size(UPLOAD_LIMITS.totalBytes)));
    }
    added.push(kept);
  }
  if (!request.isAjax) {
    request.ctx.status = 303;
    request.ctx.set('Location', composeUri(composeId));
    return;
  }
  const response = new AjaxResponse('upload', unlockId(input(request, '_unlock', 'GET')));
  for (const file of added) response.command('add2attachment_list', attachmentEntry(file), input(request, '_uploadid', 'GET') ?? '');
  response.send(request.ctx);
}
