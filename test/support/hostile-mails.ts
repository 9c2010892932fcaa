import { randomUUID } from 'node:crypto';

/** Raw messages built to hurt a mail reader, each with a line of text that a reader that copes shows. */
export type HostileMail = { readonly name: string; readonly raw: Buffer; readonly shows: string };

const head = (to: string, subject: string, contentType: string, extra: string[] = []): string =>
  [
    'From: mallory@example.org',
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${randomUUID()}@example.org>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    ...extra,
    `Content-Type: ${contentType}`,
    '',
    '',
  ].join('\r\n');

/** `count` short lines of `line`, as a mail carries them (SMTP wants lines under 1,000 bytes). */
const repeatLines = (line: string, count: number): string => `${line}\r\n`.repeat(count);

/** One text/html part of about `bytes`: paragraphs, the marker first. */
export function hugeHtml(to: string, bytes: number): HostileMail {
  const line = '<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, sed do eiusmod.</p>';
  const body = `<html><body><p>huge html starts here</p>\r\n${repeatLines(line, Math.ceil(bytes / (line.length + 2)))}</body></html>\r\n`;
  return {
    name: `${Math.round(bytes / 2 ** 20)} MB HTML`,
    raw: Buffer.from(head(to, 'huge html', 'text/html; charset=utf-8') + body),
    shows: 'huge html starts here',
  };
}

/** A table of 2 MB: many rows of cells, which an HTML-to-text converter lays out column by column. */
export function htmlTable(to: string, bytes: number): HostileMail {
  const row = '<tr><td>cell one</td><td>cell two</td><td>cell three</td><td>cell four</td></tr>';
  const body = `<html><body><p>table follows</p><table>\r\n${repeatLines(row, Math.ceil(bytes / (row.length + 2)))}</table></body></html>\r\n`;
  return {
    name: `${Math.round(bytes / 2 ** 20)} MB HTML table`,
    raw: Buffer.from(head(to, 'html table', 'text/html; charset=utf-8') + body),
    shows: 'table follows',
  };
}

/** A header block of `bytes`: X- lines before the body, past the MIME splitter's 1 MB limit. */
export function hugeHeaders(to: string, bytes: number): HostileMail {
  const line = `X-Filler: ${'x'.repeat(70)}`;
  const extra = Array.from({ length: Math.ceil(bytes / (line.length + 2)) }, () => line);
  return {
    name: `${(bytes / 2 ** 20).toFixed(1)} MB of header lines`,
    raw: Buffer.from(`${head(to, 'huge headers', 'text/plain; charset=utf-8', extra)}below the huge headers\r\n`),
    shows: 'below the huge headers',
  };
}

/** Multiparts nested `depth` deep, the text at the bottom. */
export function nestedMultiparts(to: string, depth: number): HostileMail {
  const opening: string[] = [];
  const closing: string[] = [];
  for (let level = 1; level < depth; level += 1) {
    opening.push(`--n${level - 1}\r\nContent-Type: multipart/mixed; boundary="n${level}"\r\n\r\n`);
    closing.unshift(`--n${level - 1}--\r\n`);
  }
  const deepest = `--n${depth - 1}\r\nContent-Type: text/plain\r\n\r\ndeep down the text\r\n--n${depth - 1}--\r\n`;
  const raw = head(to, 'nested', 'multipart/mixed; boundary="n0"') + opening.join('') + deepest + closing.join('');
  return { name: `${depth.toLocaleString('en')} nested multiparts`, raw: Buffer.from(raw), shows: 'deep down the text' };
}

/** A text part and `count` small attachments. */
export function manyAttachments(to: string, count: number): HostileMail {
  const parts = ['--m\r\nContent-Type: text/plain\r\n\r\nthe text before the attachments\r\n'];
  for (let index = 0; index < count; index += 1) {
    parts.push(
      `--m\r\nContent-Type: application/octet-stream; name="file${index}.bin"\r\nContent-Disposition: attachment; filename="file${index}.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgc=\r\n`,
    );
  }
  const raw = `${head(to, 'attachments', 'multipart/mixed; boundary="m"')}${parts.join('')}--m--\r\n`;
  return { name: `${count.toLocaleString('en')} attachments`, raw: Buffer.from(raw), shows: 'the text before the attachments' };
}

/** An HTML-only body next to an attachment, in a `multipart/<kind>`: mixed with a PDF, related with an inline image. */
export function htmlWithAttachment(to: string, kind: 'mixed' | 'related'): HostileMail {
  const attachment =
    kind === 'mixed'
      ? 'Content-Type: application/pdf; name="report.pdf"\r\nContent-Disposition: attachment; filename="report.pdf"'
      : 'Content-Type: image/png; name="logo.png"\r\nContent-ID: <logo@example.org>\r\nContent-Disposition: inline; filename="logo.png"';
  const shows = `only html inside multipart ${kind}`;
  const raw = [
    head(to, `html in ${kind}`, `multipart/${kind}; boundary="h"`),
    '--h\r\nContent-Type: text/html; charset=utf-8\r\n\r\n',
    `<html><body><p>${shows}</p><p>second <img src="cid:logo@example.org"> paragraph</p></body></html>\r\n`,
    `--h\r\n${attachment}\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcfs\r\n--h--\r\n`,
  ].join('');
  return { name: `HTML in multipart/${kind}`, raw: Buffer.from(raw), shows };
}

/** A plain text part of `chars` characters: nothing to convert, only too much to show. */
export function longText(to: string, chars: number): HostileMail {
  const line = 'All work and no play makes a long mail.';
  const body = `long text starts here\r\n${repeatLines(line, Math.ceil(chars / (line.length + 2)))}`;
  return {
    name: `${Math.round(chars / 1000)}k characters of plain text`,
    raw: Buffer.from(head(to, 'long text', 'text/plain; charset=utf-8') + body),
    shows: 'long text starts here',
  };
}
