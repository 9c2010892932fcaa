/**
 * What one compose ID may hold, as Roundcube bounds uploads by upload_max_filesize and max_message_size
 * (attachment_upload.php). Every byte is held in memory while a message is built, and the local store
 * on MongoDB keeps the files inside each copy's document beside a forwarded original of up to 10 MB:
 * 10 + 4 MB (base64 is not stored) stays under BSON's 16 MB.
 */
export const UPLOAD_LIMITS = {
  fileBytes: 2 * 1024 * 1024,
  totalBytes: 4 * 1024 * 1024,
  files: 20,
  /** Longer names are cut (keeping the extension): RFC 2231 encodes each character into up to 9. */
  filenameChars: 200,
} as const;

/** C0, DEL and C1. */
const CONTROL = /\p{Cc}/gu;
const TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i;

/**
 * The name a browser sent, as it may go into a MIME header and a page: the last path segment only
 * (no `../`, no `C:\`), no control characters, at most `filenameChars` (the extension kept), never empty.
 */
export function uploadedFilename(sent: string | null | undefined): string {
  const base = (sent ?? '').replace(CONTROL, '').split(/[/\\]/).pop()!.trim();
  const name = base === '.' || base === '..' ? '' : base;
  const chars = [...name];
  if (chars.length <= UPLOAD_LIMITS.filenameChars) return name === '' ? 'attachment' : name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? [...name.slice(dot)] : [];
  return [...chars.slice(0, UPLOAD_LIMITS.filenameChars - extension.length), ...extension].join('');
}

/** The part's declared type when it is a plain `type/subtype`, else Roundcube's fallback. */
export const uploadedContentType = (sent: string | null | undefined): string => (sent && TYPE.test(sent) ? sent.toLowerCase() : 'application/octet-stream');
