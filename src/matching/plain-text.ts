import { decodeHTML } from 'entities';
import { LITERAL, rawContent, rawTextElement, runEndsAt, scanMarkup, UNFINISHED, withRunNewlines } from './html-markup.ts';

/**
 * Mastodon's plain text of a status's HTML (PlainTextFormatter for remote statuses): a newline after
 * every run of `<br />`, `<br>` and `</p>` in the raw HTML, then the text of the HTML5 parse with
 * every tag and comment dropped (Rails' strip_tags, whose text-only scrubber keeps the text of every
 * element, script and style included), entities decoded, and one trailing newline removed (chomp).
 *
 * This follows the HTML5 tokenizer (tags and their quoted attributes, comments, bogus comments, raw
 * text and RCDATA elements, character references with the legacy no-semicolon forms, CR LF -> LF) in
 * one pass, without building a tree: the tree builder's reordering of misplaced table text is not
 * reproduced, nor foreign (SVG/MathML) CDATA. Statuses Mastodon serves hold only the few inline and
 * block tags its sanitizer allows, where the two agree.
 */
export function htmlToPlainText(html: string): string {
  const length = html.length;
  // Checked once for the whole input, so that the pieces between tags need no checks of their own.
  const cleanup = (html.includes('\0') ? NUL_DROP : 0) | (html.includes('\r') ? CR : 0) | (html.includes('&') ? REFERENCES : 0);
  const text = new PlainText();
  let pending = 0;
  let at = 0;
  while (at < length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    const markup = scanMarkup(html, open);
    if (markup === LITERAL) {
      at = open + 1;
      continue;
    }
    if (open > pending) text.add(dataText(html.slice(pending, open), cleanup));
    if (markup === UNFINISHED) return text.chomped();
    let end = markup;
    if (runEndsAt(html, end)) text.newline();
    const element = rawTextElement(html, open);
    if (element !== null) {
      const content = rawContent(html, element, end);
      const raw = withRunNewlines(content.text);
      const nul = cleanup & NUL_DROP ? NUL_REPLACE : 0;
      text.add(dataText(raw, element.decoded ? nul | (cleanup & (CR | REFERENCES)) : nul | (cleanup & CR)));
      if (content.closeTagEnd === UNFINISHED) return text.chomped();
      end = content.closeTagEnd;
      if (runEndsAt(html, end)) text.newline();
    }
    pending = at = end;
  }
  if (pending < length) text.add(dataText(html.slice(pending), cleanup));
  return text.chomped();
}

/**
 * The text as it is put together. A run's newline is held back until more text follows, so that
 * Ruby's chomp of the last one costs nothing (and the string is not flattened here).
 */
class PlainText {
  private text = '';
  private last = '';
  private newlineHeld = false;

  add(piece: string): void {
    if (piece === '') return;
    if (this.newlineHeld) this.text += '\n';
    this.newlineHeld = false;
    this.text += piece;
    this.last = piece;
  }

  newline(): void {
    if (this.newlineHeld) this.text += '\n';
    this.newlineHeld = true;
  }

  /** Ruby's String#chomp: one trailing LF, CR LF or CR removed. */
  chomped(): string {
    if (this.newlineHeld) return this.last.endsWith('\r') && this.text.endsWith(this.last) ? this.text.slice(0, -1) : this.text;
    if (this.last.endsWith('\r\n')) return this.text.slice(0, -2);
    if (this.last.endsWith('\n') || this.last.endsWith('\r')) return this.text.slice(0, -1);
    return this.text;
  }
}

const NUL_DROP = 1;
const CR = 2;
const REFERENCES = 4;
const NUL_REPLACE = 8;

/**
 * Text as the tree gets it: NUL dropped in data and U+FFFD in RCDATA and raw text, CR LF -> LF,
 * character references decoded (not in raw text). `cleanup` says which of these the input needs.
 */
function dataText(raw: string, cleanup: number): string {
  if (cleanup === 0) return raw;
  let text = raw;
  if (cleanup & (NUL_DROP | NUL_REPLACE) && text.includes('\0')) text = text.replaceAll('\0', cleanup & NUL_DROP ? '' : '\uFFFD');
  if (cleanup & CR && text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  return cleanup & REFERENCES && text.includes('&') ? decodeHTML(text) : text;
}
