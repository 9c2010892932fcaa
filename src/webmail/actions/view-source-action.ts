import { pipeline } from 'node:stream/promises';
import { MailboxUnavailable, type Mailbox } from '../mail/mailbox.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { LoggedInSession } from './logged-in-session.ts';
import { folderParameter, messageNotFound, uidParameter } from './mailbox-actions.ts';

const MAX_FILENAME = 100;

/** The subject as a file name: no control characters, path separators or quotes, and not too long. */
export const fileName = (subject: string): string =>
  `${
    subject
      .replace(/[\p{Cc}/\\"]+/gu, '_')
      .trim()
      .slice(0, MAX_FILENAME) || 'message'
  }.eml`;

/**
 * GET ?_task=mail&_action=viewsource&_mbox=..&_uid=..[&_save=1]: the message as it was delivered,
 * Roundcube's "Download (.eml)" with `_save=1`, its source as plain text without. It is streamed from
 * the server as it arrives, so its size costs no memory; the mailbox stays open until the last byte.
 */
export async function viewSourceAction(_services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const uid = uidParameter(request);
  const folder = folderParameter(request, await mailbox.folders());
  const source = uid === null ? null : await mailbox.source(folder.path, uid);
  if (!source) return messageNotFound(request);
  const { ctx } = request;
  ctx.status = 200;
  if (input(request, '_save', 'GET') === '1') {
    ctx.attachment(fileName(source.subject));
    ctx.type = 'message/rfc822';
  } else ctx.type = 'text/plain; charset=utf-8';
  // Koa would answer after this action returns, and the mailbox closes then: the stream is written here.
  ctx.respond = false;
  try {
    await pipeline(source.content, ctx.res);
  } catch (error) {
    ctx.res.destroy();
    // A reader that went away is no failure of the server; a server that failed mid-way is.
    if (ctx.req.destroyed || (error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw new MailboxUnavailable(`downloading the message failed: ${(error as Error).message}`);
  }
}
