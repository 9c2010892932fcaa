/**
 * The HTML5 tokenizer, reduced to what plain text needs: where each piece of markup ends (tags with
 * their quoted attribute values, comments, bogus comments), which elements hold raw text or RCDATA,
 * and where Mastodon's newline runs (`<br />`, `<br>`, `</p>`) end.
 */

/** `<` that starts no markup: it is text. */
export const LITERAL = -1;
/** Markup that the input ends inside: it is dropped, and so is everything after it. */
export const UNFINISHED = -2;

const isAsciiAlpha = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;

/** Where the markup that starts at `open` ends (the index after it), LITERAL or UNFINISHED. */
export function scanMarkup(html: string, open: number): number {
  const next = html.charCodeAt(open + 1);
  if (isAsciiAlpha(next)) return endOfTag(html, open + 2);
  if (next === 0x2f /* / */) {
    const after = html.charCodeAt(open + 2);
    if (isAsciiAlpha(after)) return endOfTag(html, open + 3);
    if (after === 0x3e /* > */) return open + 3; // `</>` is dropped
    if (Number.isNaN(after)) return LITERAL; // `</` at the end is text
    return endOfBogusComment(html, open + 2);
  }
  if (next === 0x21 /* ! */) {
    if (html.startsWith('<!--', open)) return endOfComment(html, open + 4);
    return endOfBogusComment(html, open + 2);
  }
  if (next === 0x3f /* ? */) return endOfBogusComment(html, open + 1);
  return LITERAL;
}

function endOfBogusComment(html: string, from: number): number {
  const close = html.indexOf('>', from);
  return close < 0 ? UNFINISHED : close + 1;
}

/**
 * A comment ends at the first `-->` or `--!>` (the HTML5 comment states reduce to that). Both are looked
 * for in one forward pass from the last `--` seen, so a run of comments costs its length in all.
 */
function endOfComment(html: string, from: number): number {
  if (html.startsWith('>', from)) return from + 1; // `<!-->`
  if (html.startsWith('->', from)) return from + 2; // `<!--->`
  for (let dashes = html.indexOf('--', from); dashes >= 0; dashes = html.indexOf('--', dashes + 1)) {
    const after = html.charCodeAt(dashes + 2);
    if (after === 0x3e /* > */) return dashes + 3;
    if (after === 0x21 /* ! */ && html.charCodeAt(dashes + 3) === 0x3e) return dashes + 4;
  }
  return UNFINISHED;
}

const enum TagState {
  Name,
  BeforeAttributeName,
  AttributeName,
  AfterAttributeName,
  BeforeValue,
  UnquotedValue,
  SelfClosing,
}

/** The HTML5 tag states, reduced to what decides where a tag ends: `>` outside a quoted value. */
function endOfTag(html: string, from: number): number {
  let state = TagState.Name;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 0x3e /* > */) return i + 1;
    switch (state) {
      case TagState.Name:
        if (isSpace(c)) state = TagState.BeforeAttributeName;
        else if (c === 0x2f) state = TagState.SelfClosing;
        break;
      case TagState.BeforeAttributeName:
      case TagState.SelfClosing:
        if (c === 0x2f) state = TagState.SelfClosing;
        else if (!isSpace(c)) state = TagState.AttributeName;
        break;
      case TagState.AttributeName:
        if (isSpace(c)) state = TagState.AfterAttributeName;
        else if (c === 0x2f) state = TagState.SelfClosing;
        else if (c === 0x3d /* = */) state = TagState.BeforeValue;
        break;
      case TagState.AfterAttributeName:
        if (c === 0x2f) state = TagState.SelfClosing;
        else if (c === 0x3d) state = TagState.BeforeValue;
        else if (!isSpace(c)) state = TagState.AttributeName;
        break;
      case TagState.BeforeValue:
        if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
          const close = html.indexOf(html[i]!, i + 1);
          if (close < 0) return UNFINISHED;
          i = close;
          state = TagState.BeforeAttributeName;
        } else if (!isSpace(c)) {
          state = TagState.UnquotedValue;
        }
        break;
      case TagState.UnquotedValue:
        if (isSpace(c)) state = TagState.BeforeAttributeName;
        break;
    }
  }
  return UNFINISHED;
}

export interface RawTextElement {
  readonly name: string;
  /** RCDATA (textarea, title) decodes character references; raw text does not. */
  readonly decoded: boolean;
}

const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);
const RCDATA = new Set(['textarea', 'title']);
/** By the first two letters (a-z each): 1 where a raw text or RCDATA element's name begins so. */
const RAW_OR_RCDATA_PREFIXES = new Uint8Array(26 * 26);
for (const name of [...RAW_TEXT, ...RCDATA]) RAW_OR_RCDATA_PREFIXES[(name.charCodeAt(0) - 0x61) * 26 + name.charCodeAt(1) - 0x61] = 1;
const RAW_OR_RCDATA_LENGTHS = new Set([...RAW_TEXT, ...RCDATA].map((name) => name.length));

/** The raw text or RCDATA element that a start tag from `open` to `end` opens, else null. */
export function rawTextElement(html: string, open: number): RawTextElement | null {
  // Most tags are ruled out by their first two letters (ASCII lower-cased by | 0x20).
  const first = (html.charCodeAt(open + 1) | 0x20) - 0x61;
  const second = (html.charCodeAt(open + 2) | 0x20) - 0x61;
  if (first < 0 || first > 25 || second < 0 || second > 25 || RAW_OR_RCDATA_PREFIXES[first * 26 + second] === 0) return null;
  let nameEnd = open + 2;
  while (nameEnd < html.length) {
    const c = html.charCodeAt(nameEnd);
    if (isSpace(c) || c === 0x2f || c === 0x3e) break;
    nameEnd++;
  }
  if (!RAW_OR_RCDATA_LENGTHS.has(nameEnd - open - 1)) return null;
  const name = html.slice(open + 1, nameEnd).toLowerCase();
  if (RAW_TEXT.has(name)) return { name, decoded: false };
  if (RCDATA.has(name)) return { name, decoded: true };
  return null;
}

const closeTags = new Map<string, RegExp>();

/** The element's text up to its end tag, and where that end tag ends (UNFINISHED at the input's end). */
export function rawContent(html: string, element: RawTextElement, from: number): { text: string; closeTagEnd: number } {
  if (element.name === 'plaintext') return { text: html.slice(from), closeTagEnd: UNFINISHED };
  let close = closeTags.get(element.name);
  if (!close) closeTags.set(element.name, (close = new RegExp(`</${element.name}[\\t\\n\\f\\r />]`, 'ig')));
  close.lastIndex = from;
  const found = close.exec(html);
  if (!found) return { text: html.slice(from), closeTagEnd: UNFINISHED };
  return { text: html.slice(from, found.index), closeTagEnd: endOfTag(html, found.index + 2 + element.name.length) };
}

const RUN = /(?:<br \/>|<br>|<\/p>)+/g;

/** Mastodon inserts its newlines into the raw HTML, so runs inside raw text get them too. */
export function withRunNewlines(raw: string): string {
  return raw.includes('<') ? raw.replace(RUN, '$&\n') : raw;
}

/** Whether a run of `<br />`, `<br>` and `</p>` ends exactly at `index` (Mastodon's newline goes there). */
export function runEndsAt(html: string, index: number): boolean {
  return endsRunElement(html, index) && !startsRunElement(html, index);
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const SPACE = 0x20;
const B = 0x62;
const P = 0x70;
const R = 0x72;

/** `</p>`, `<br>` or `<br />` ends at `index` (markup always ends in `>`). */
function endsRunElement(html: string, index: number): boolean {
  const c = html.charCodeAt(index - 2);
  if (c === P) return html.charCodeAt(index - 3) === SLASH && html.charCodeAt(index - 4) === LT;
  if (c === R) return html.charCodeAt(index - 3) === B && html.charCodeAt(index - 4) === LT;
  if (c !== SLASH) return false;
  return html.charCodeAt(index - 3) === SPACE && html.charCodeAt(index - 4) === R && html.charCodeAt(index - 5) === B && html.charCodeAt(index - 6) === LT;
}

function startsRunElement(html: string, index: number): boolean {
  if (html.charCodeAt(index) !== LT) return false;
  const c = html.charCodeAt(index + 1);
  if (c === SLASH) return html.charCodeAt(index + 2) === P && html.charCodeAt(index + 3) === GT;
  if (c !== B || html.charCodeAt(index + 2) !== R) return false;
  const after = html.charCodeAt(index + 3);
  return after === GT || (after === SPACE && html.charCodeAt(index + 4) === SLASH && html.charCodeAt(index + 5) === GT);
}
