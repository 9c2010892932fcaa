import alphabetic from '@unicode/unicode-15.0.0/Binary_Property/Alphabetic/ranges.mjs';
import connectorPunctuation from '@unicode/unicode-15.0.0/General_Category/Connector_Punctuation/ranges.mjs';
import decimalNumber from '@unicode/unicode-15.0.0/General_Category/Decimal_Number/ranges.mjs';
import mark from '@unicode/unicode-15.0.0/General_Category/Mark/ranges.mjs';

/**
 * Ruby's word characters (`[[:word:]]`, and what `\b` looks at in a UTF-8 regex): Onigmo defines Word
 * as Alphabetic + Mark + Decimal_Number + Connector_Punctuation. Letters of every script count (CJK
 * ideographs too), emoji and other symbols do not.
 */
/** The package's `ranges.d.mts` imports a type its `decode-ranges.d.mts` does not export, so it is stated here. */
interface CodePointRange {
  readonly begin: number;
  readonly end: number;
}
const wordSets = [alphabetic, mark, decimalNumber, connectorPunctuation] as unknown as CodePointRange[][];
const ranges = wordSets.flat().sort((a, b) => a.begin - b.begin);

const bmp = new Uint8Array(0x10000);
const astralBegins: number[] = [];
const astralEnds: number[] = [];
for (const { begin, end } of ranges) {
  // `end` is exclusive.
  for (let cp = begin; cp < Math.min(end, 0x10000); cp++) bmp[cp] = 1;
  if (end > 0x10000) {
    astralBegins.push(Math.max(begin, 0x10000));
    astralEnds.push(end);
  }
}

function isAstralWord(codePoint: number): boolean {
  let low = 0;
  let high = astralBegins.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < astralBegins[middle]!) high = middle - 1;
    else if (codePoint >= astralEnds[middle]!) low = middle + 1;
    else return true;
  }
  return false;
}

export function isWordCodePoint(codePoint: number): boolean {
  return codePoint < 0x10000 ? bmp[codePoint] === 1 : isAstralWord(codePoint);
}

/** Whether the first (or last) character of a keyword is a word character: where `\b` is added. */
export function startsWithWordCharacter(text: string): boolean {
  const first = text.codePointAt(0);
  return first !== undefined && isWordCodePoint(first);
}

export function endsWithWordCharacter(text: string): boolean {
  return text.length > 0 && isWordCodePoint(codePointBefore(text, text.length));
}

/** The code point that ends just before UTF-16 index `index` (a whole surrogate pair when there is one). */
export function codePointBefore(text: string, index: number): number {
  const last = text.charCodeAt(index - 1);
  if (last >= 0xdc00 && last <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (last - 0xdc00) + 0x10000;
  }
  return last;
}

/** Ruby's `\b` at UTF-16 index `index`: a word character on exactly one side. */
export function isWordBoundary(text: string, index: number): boolean {
  const before = index > 0 && isWordCodePoint(codePointBefore(text, index));
  const after = index < text.length && isWordCodePoint(text.codePointAt(index)!);
  return before !== after;
}
