import { codePointsFoldingTo, foldMultiple, multipleFoldingsWith } from './case-folding.ts';
import { WORK_PER_STEP, type Steps } from './paced-steps.ts';

/** Any character that is in no keyword. */
export const OTHER = 0;
/** Ruby's `\b`: fed between two characters of which exactly one is a word character (see keyword-automaton.ts). */
export const BOUNDARY = 1;
export const FIRST_LETTER_SYMBOL = 2;

/** For each text character that can take part in a keyword: the symbol its folding is. */
export class SymbolLookup {
  readonly ascii = new Int32Array(0x80);
  /** Non-ASCII BMP code points by 256-wide page: symbol, or -1 - n for the n-th multi-symbol folding. */
  readonly pages = new Array<Int32Array | undefined>(0x100);
  readonly astral = new Map<number, number>();
  /** Full foldings (ß -> s s) that share a code point with some keyword: fed as several symbols. */
  readonly sequences: Int32Array[] = [];

  /** OTHER, a symbol, or -1 - n for the n-th sequence. */
  symbolOf(codePoint: number): number {
    if (codePoint < 0x80) return this.ascii[codePoint]!;
    if (codePoint < 0x10000) return this.pages[codePoint >> 8]?.[codePoint & 0xff] ?? OTHER;
    return this.astral.get(codePoint) ?? OTHER;
  }

  /** In 4-byte units. */
  get size(): number {
    let pages = 0;
    for (const page of this.pages) pages += page?.length ?? 0;
    return this.ascii.length + pages + this.astral.size * 4 + this.sequences.length * 8;
  }

  private set(codePoint: number, value: number): void {
    if (codePoint < 0x80) this.ascii[codePoint] = value;
    else if (codePoint < 0x10000) (this.pages[codePoint >> 8] ??= new Int32Array(0x100))[codePoint & 0xff] = value;
    else this.astral.set(codePoint, value);
  }

  /** Work proportional to the keywords' distinct code points (each has a handful of case variants). */
  static *build(symbols: ReadonlyMap<number, number>): Steps<SymbolLookup> {
    const lookup = new SymbolLookup();
    const multiple = new Set<number>();
    let work = 0;
    for (const [folded, symbol] of symbols) {
      for (const codePoint of codePointsFoldingTo(folded)) lookup.set(codePoint, symbol);
      for (const codePoint of multipleFoldingsWith(folded)) multiple.add(codePoint);
      if (++work % WORK_PER_STEP === 0) yield;
    }
    for (const codePoint of multiple) {
      lookup.sequences.push(Int32Array.from(foldMultiple(codePoint)!, (cp) => symbols.get(cp) ?? OTHER));
      lookup.set(codePoint, -lookup.sequences.length);
    }
    return lookup;
  }
}
