import formidable from 'formidable';
import type { Context } from 'koa';
import { UPLOAD_LIMITS, uploadedContentType, uploadedFilename } from './upload-limits.ts';

export type UploadedPart = { readonly filename: string; readonly contentType: string; readonly content: Buffer };

/** Why an upload stopped: `tooLarge` (a file or the request past UPLOAD_LIMITS), `tooMany` files, or a malformed form. */
export type UploadRefusal = 'tooLarge' | 'tooMany' | 'malformed' | 'forbidden';

export type ReadUpload = { readonly fields: ReadonlyMap<string, string>; readonly files: readonly UploadedPart[] } | { readonly refused: UploadRefusal };

const FIELD_BYTES = 1024;
const FIELDS = 16;

/**
 * Reads a `multipart/form-data` body part by part (formidable's parser, each part handled here), holding at
 * most UPLOAD_LIMITS.fileBytes per file and totalBytes in all: past either it stops reading at once and
 * says why, so an upload of any size costs no more than the limit. `mayAccept` is asked before the first
 * file's bytes are kept, with the fields read so far (the request token comes first in the form).
 * Fields are kept in a Map, so a field named `__proto__` is just a name.
 */
export function readUpload(ctx: Context, mayAccept: (fields: ReadonlyMap<string, string>) => boolean): Promise<ReadUpload> {
  if (!/^multipart\/form-data\s*;/i.test(ctx.get('content-type'))) return Promise.resolve({ refused: 'malformed' });
  return new Promise((resolve) => {
    const form = formidable({ maxFields: FIELDS, maxFiles: UPLOAD_LIMITS.files, allowEmptyFiles: true, minFileSize: 0 });
    const fields = new Map<string, string>();
    const files: UploadedPart[] = [];
    let total = 0;
    let accepted: boolean | null = null;
    let settled = false;
    const stop = (refused: UploadRefusal) => {
      if (settled) return;
      settled = true;
      ctx.req.unpipe();
      ctx.req.pause();
      resolve({ refused });
    };
    form.onPart = (part) => {
      if (settled) return;
      if (part.originalFilename === null || part.originalFilename === undefined) {
        let value = '';
        part.on('data', (chunk: Buffer) => {
          value += chunk.toString('utf8');
          if (value.length > FIELD_BYTES || fields.size >= FIELDS) stop('malformed');
        });
        part.on('end', () => {
          if (!settled && part.name) fields.set(part.name, value);
        });
        return;
      }
      accepted ??= mayAccept(fields);
      if (!accepted) return stop('forbidden');
      // No file chosen: browsers send the part with an empty name and no bytes (PHP's UPLOAD_ERR_NO_FILE).
      const chosen = part.originalFilename !== '';
      if (chosen && files.length >= UPLOAD_LIMITS.files) return stop('tooMany');
      const chunks: Buffer[] = [];
      let size = 0;
      part.on('data', (chunk: Buffer) => {
        size += chunk.length;
        total += chunk.length;
        if (size > UPLOAD_LIMITS.fileBytes || total > UPLOAD_LIMITS.totalBytes) return stop('tooLarge');
        if (!settled) chunks.push(chunk);
      });
      part.on('end', () => {
        if (settled || !chosen) return;
        files.push({ filename: uploadedFilename(part.originalFilename), contentType: uploadedContentType(part.mimetype), content: Buffer.concat(chunks) });
      });
    };
    form.on('error', (error: { httpCode?: number }) => stop(error.httpCode === 413 ? 'tooLarge' : 'malformed'));
    form.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, files });
    });
    form.parse(ctx.req).catch(() => stop('malformed'));
  });
}

/**
 * After a refusal the rest of the body is not wanted, but a client still sending it must hear the answer:
 * a small rest (256 KB, within 2 s) is read and dropped before answering. Node 24 ends a socket whose
 * request was not read to its end once the answer is written, and the client's write then fails (EPIPE)
 * before it reads the answer. A larger rest is answered with `Connection: close` (below).
 */
const REST_READ_BYTES = 256 * 1024;

export async function dropRestOfBody(ctx: Context): Promise<void> {
  const req = ctx.req;
  if (req.readableEnded) return;
  if (Number(ctx.get('content-length') || 0) > REST_READ_BYTES) return closeAfterAnswer(ctx);
  const whole = await new Promise<boolean>((resolve) => {
    let drained = 0;
    const done = (read: boolean) => {
      clearTimeout(cutOff);
      req.off('data', onData);
      req.off('end', onEnd);
      if (!read) req.pause();
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > REST_READ_BYTES) done(false);
    };
    const onEnd = () => done(true);
    const cutOff = setTimeout(() => done(false), 2_000);
    req.on('data', onData);
    req.once('end', onEnd);
    req.resume();
  });
  if (!whole) closeAfterAnswer(ctx);
}

/**
 * When the rest is too large to read: the answer says `Connection: close`, and once it
 * is written the socket is ended, reading at most a little more so the client sees the answer first.
 */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => {
    const socket = ctx.req.socket;
    let drained = 0;
    const cutOff = setTimeout(() => socket.destroy(), 2_000);
    cutOff.unref();
    ctx.req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > 256 * 1024) socket.destroy();
    });
    ctx.req.once('end', () => clearTimeout(cutOff));
    ctx.req.resume();
  });
}
