import { codePointsFoldingTo, foldedLength, foldMultiple, multipleFoldingsWith } from './case-folding.ts';

/** Reports one case-insensitive occurrence: which keyword, and where it is in the text (UTF-16, end exclusive). */
export type OccurrenceListener = (keyword: number, start: number, end: number) => void;

const OTHER = 0;

/**
 * Finds every case-insensitive occurrence of many keywords in one pass over a text (Aho-Corasick).
 * Keywords and text are compared as folded code points (see case-folding.ts), so `STRASSE` contains
 * `straße`. An occurrence must begin and end on whole characters of the text, as in Ruby: `s` does not
 * occur in `ß`, although `ß` folds to `ss`.
 *
 * The automaton is a dense table: one row per trie state, one column per distinct folded code point of
 * the keywords plus one for every other character. A cell holds the next state's row offset, negated
 * (bitwise) when that state ends a keyword, so the scan loop is a load and a sign test per character.
 */
export class KeywordAutomaton {
  private constructor(
    private readonly width: number,
    private readonly table: Int32Array,
    /** Per state: where its keywords start in `outputs` (state count + 1 entries). */
    private readonly outputStarts: Int32Array,
    private readonly outputs: Int32Array,
    private readonly keywordLengths: Int32Array,
    private readonly ascii: Int32Array,
    /** Non-ASCII BMP code points by 256-wide page: symbol, or -1 - n for the n-th multi-symbol folding. */
    private readonly pages: (Int32Array | undefined)[],
    private readonly astral: Map<number, number>,
    private readonly sequences: Int32Array[],
  ) {}

  /** Cells in the table: what a cached automaton costs in memory, in 4-byte units. */
  get size(): number {
    return this.table.length + this.outputs.length;
  }

  static build(foldedKeywords: readonly (readonly number[])[]): KeywordAutomaton {
    const symbols = new Map<number, number>();
    for (const keyword of foldedKeywords) for (const cp of keyword) if (!symbols.has(cp)) symbols.set(cp, symbols.size + 1);
    const width = symbols.size + 1;

    // The trie, one Map of children per state; state 0 is the root.
    const children: Map<number, number>[] = [new Map<number, number>()];
    const ends: number[][] = [[]];
    foldedKeywords.forEach((keyword, index) => {
      let state = 0;
      for (const cp of keyword) {
        const symbol = symbols.get(cp)!;
        let next = children[state]!.get(symbol);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          ends.push([]);
          children[state]!.set(symbol, next);
        }
        state = next;
      }
      if (keyword.length > 0) ends[state]!.push(index);
    });

    // Breadth first: each state's failure state is done before it, so its row and outputs can be copied.
    const states = children.length;
    const next = new Int32Array(states * width);
    const fail = new Int32Array(states);
    const outputsOf: number[][] = ends.map((own) => [...own]);
    const queue: number[] = [];
    for (const [symbol, child] of children[0]!) {
      next[symbol] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      const failRow = fail[state]! * width;
      for (let symbol = 0; symbol < width; symbol++) next[state * width + symbol] = next[failRow + symbol]!;
      for (const [symbol, child] of children[state]!) {
        fail[child] = next[failRow + symbol]!;
        next[state * width + symbol] = child;
        queue.push(child);
      }
      outputsOf[state]!.push(...outputsOf[fail[state]!]!);
    }

    const table = new Int32Array(states * width);
    for (let cell = 0; cell < table.length; cell++) {
      const target = next[cell]!;
      table[cell] = outputsOf[target]!.length > 0 ? ~(target * width) : target * width;
    }
    const outputStarts = new Int32Array(states + 1);
    const flat: number[] = [];
    for (let state = 0; state < states; state++) {
      outputStarts[state] = flat.length;
      flat.push(...outputsOf[state]!);
    }
    outputStarts[states] = flat.length;

    const lookup = symbolLookup(symbols);
    return new KeywordAutomaton(
      width,
      table,
      outputStarts,
      Int32Array.from(flat),
      Int32Array.from(foldedKeywords, (k) => k.length),
      lookup.ascii,
      lookup.pages,
      lookup.astral,
      lookup.sequences,
    );
  }

  /** Calls `listener` for every occurrence, in order of where they end. */
  scan(text: string, listener: OccurrenceListener): void {
    const { table, ascii, pages } = this;
    const length = text.length;
    let row = 0;
    for (let i = 0; i < length; i++) {
      const unit = text.charCodeAt(i);
      let symbol: number;
      if (unit < 0x80) {
        symbol = ascii[unit]!;
      } else {
        let codePoint = unit;
        if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
          const low = text.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            codePoint = (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
            i++;
          }
        }
        symbol = codePoint < 0x10000 ? (pages[codePoint >> 8]?.[codePoint & 0xff] ?? OTHER) : (this.astral.get(codePoint) ?? OTHER);
        if (symbol < 0) {
          // A full folding (ß -> s s): every symbol but the last moves the automaton, but an occurrence
          // cannot end inside the character, so only the last one may report.
          const sequence = this.sequences[-1 - symbol]!;
          for (let k = 0; k < sequence.length - 1; k++) {
            const cell = table[row + sequence[k]!]!;
            row = cell < 0 ? ~cell : cell;
          }
          symbol = sequence[sequence.length - 1]!;
        }
      }
      const cell = table[row + symbol]!;
      if (cell < 0) {
        row = ~cell;
        this.report(text, row, i + 1, listener);
      } else {
        row = cell;
      }
    }
  }

  private report(text: string, row: number, end: number, listener: OccurrenceListener): void {
    const state = row / this.width;
    for (let k = this.outputStarts[state]!; k < this.outputStarts[state + 1]!; k++) {
      const keyword = this.outputs[k]!;
      const start = startOf(text, end, this.keywordLengths[keyword]!);
      if (start >= 0) listener(keyword, start, end);
    }
  }
}

/**
 * Where an occurrence that ends at `end` and spans `length` folded code points starts, walking back
 * over whole characters; -1 when it would start inside a character's full folding.
 */
function startOf(text: string, end: number, length: number): number {
  let index = end;
  let remaining = length;
  while (remaining > 0 && index > 0) {
    const low = text.charCodeAt(index - 1);
    let codePoint = low;
    let units = 1;
    if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
      const high = text.charCodeAt(index - 2);
      if (high >= 0xd800 && high <= 0xdbff) {
        codePoint = (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        units = 2;
      }
    }
    remaining -= foldedLength(codePoint);
    index -= units;
  }
  return remaining === 0 ? index : -1;
}

interface SymbolLookup {
  readonly ascii: Int32Array;
  readonly pages: (Int32Array | undefined)[];
  readonly astral: Map<number, number>;
  readonly sequences: Int32Array[];
}

/** For each text character that can take part in a keyword: the symbol its folding is. */
function symbolLookup(symbols: ReadonlyMap<number, number>): SymbolLookup {
  const lookup: SymbolLookup = { ascii: new Int32Array(0x80), pages: new Array<Int32Array | undefined>(0x100), astral: new Map(), sequences: [] };
  const set = (codePoint: number, value: number) => {
    if (codePoint < 0x80) lookup.ascii[codePoint] = value;
    else if (codePoint < 0x10000) (lookup.pages[codePoint >> 8] ??= new Int32Array(0x100))[codePoint & 0xff] = value;
    else lookup.astral.set(codePoint, value);
  };
  const multiple = new Set<number>();
  for (const [folded, symbol] of symbols) {
    for (const codePoint of codePointsFoldingTo(folded)) set(codePoint, symbol);
    for (const codePoint of multipleFoldingsWith(folded)) multiple.add(codePoint);
  }
  // Characters with a full folding that shares a code point with some keyword: fed as several symbols.
  for (const codePoint of multiple) {
    lookup.sequences.push(Int32Array.from(foldMultiple(codePoint)!, (cp) => symbols.get(cp) ?? OTHER));
    set(codePoint, -lookup.sequences.length);
  }
  return lookup;
}
