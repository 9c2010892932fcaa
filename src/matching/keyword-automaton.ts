import type { EdgeTable } from './edge-table.ts';
import { buildAutomaton, type AutomatonKeyword, type AutomatonParts } from './keyword-automaton-build.ts';
import type { Steps } from './paced-steps.ts';
import { BOUNDARY, OTHER, type SymbolLookup } from './symbol-lookup.ts';
import { isWordCodePoint } from './word-characters.ts';

/**
 * Finds, for every filter, its first keyword occurrence in a text in one pass (Aho-Corasick), the way
 * `Regexp.union` of the filter's keywords would: leftmost start, and at one start the first keyword.
 * Keywords and text are compared as folded code points (see case-folding.ts), so `STRASSE` contains
 * `straße`; an occurrence must begin and end on whole characters of the text, as in Ruby: `s` does not
 * occur in `ß`. Ruby's `\b` is a symbol of its own, fed between a word and a non-word character, so
 * every occurrence the automaton reports is a real match: nothing is found and then thrown away.
 *
 * Work per text: one transition per symbol (failure links amortised), and per output node reached at
 * most one look that is not skipped thereafter. A node whose occurrence cannot beat its filter's match
 * any more (it would start later, or at the same place as a keyword listed before it) stays so for the
 * rest of the text, and is jumped over from then on (per-scan skip pointers with path compression).
 * The start of an occurrence is read from a ring of the last `longest` symbols' positions.
 */
const ASCII_WORD = Uint8Array.from({ length: 0x80 }, (_, c) => (isWordCodePoint(c) ? 1 : 0));

export class KeywordAutomaton {
  /** After a scan: per filter, where its first match starts and ends in the text (UTF-16), or -1. */
  readonly matchStart: Int32Array;
  readonly matchEnd: Int32Array;
  /** Per filter: the match's start in the stream of symbols, and its keyword's order. */
  private readonly bestAt: Int32Array;
  private readonly bestKey: Int32Array;
  private readonly bestOrder: Int32Array;
  private readonly ring: Int32Array;
  private readonly ringMask: number;
  /** Skip pointers of this scan: valid where `stamp` is this scan's `generation`. */
  private readonly stamp: Int32Array;
  private readonly jump: Int32Array;
  private generation = 0;
  private undecided = 0;
  private stopAfter = Infinity;

  private readonly rootNext: Int32Array;
  private readonly edges: EdgeTable;
  private readonly fail: Int32Array;
  private readonly dense: Int32Array | null;
  private readonly width: number;
  private readonly outHead: Int32Array;
  private readonly nodeFilter: Int32Array;
  private readonly nodeOrder: Int32Array;
  private readonly nodeLength: Int32Array;
  private readonly nodeNext: Int32Array;
  private readonly lookup: SymbolLookup;
  private readonly longest: number;
  private readonly keywordFilters: number;

  private constructor(parts: AutomatonParts, filterCount: number) {
    ({ rootNext: this.rootNext, edges: this.edges, fail: this.fail, outHead: this.outHead, lookup: this.lookup } = parts);
    ({ nodeFilter: this.nodeFilter, nodeOrder: this.nodeOrder, nodeLength: this.nodeLength, nodeNext: this.nodeNext } = parts);
    this.dense = parts.dense;
    this.width = parts.width;
    this.longest = parts.longest;
    this.keywordFilters = parts.keywordFilters;
    this.matchStart = new Int32Array(filterCount);
    this.matchEnd = new Int32Array(filterCount);
    this.bestAt = new Int32Array(filterCount);
    this.bestKey = new Int32Array(filterCount);
    this.bestOrder = new Int32Array(filterCount);
    let ringSize = 1;
    while (ringSize <= parts.longest) ringSize *= 2;
    this.ring = new Int32Array(ringSize);
    this.ringMask = ringSize - 1;
    this.stamp = new Int32Array(this.nodeFilter.length);
    this.jump = new Int32Array(this.nodeFilter.length);
  }

  static *build(keywords: readonly AutomatonKeyword[], filterCount: number): Steps<KeywordAutomaton> {
    return new KeywordAutomaton(yield* buildAutomaton(keywords), filterCount);
  }

  /** Roughly what the automaton holds, in 4-byte units: the cache's measure. */
  get size(): number {
    const perNode = 6;
    return (
      this.rootNext.length +
      (this.dense?.length ?? 0) +
      this.edges.size +
      this.fail.length * 2 +
      this.nodeFilter.length * perNode +
      this.ring.length +
      this.lookup.size
    );
  }

  /** Leaves each filter's first match in matchStart/matchEnd (-1 when it has none). */
  scan(text: string): void {
    const { ring, ringMask, lookup, outHead } = this;
    const { ascii } = lookup;
    this.matchStart.fill(-1);
    this.bestAt.fill(-1);
    this.undecided = this.keywordFilters;
    this.stopAfter = Infinity;
    if (++this.generation === 0x40000000) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    const length = text.length;
    let state = 0;
    let at = 0; // symbols fed so far
    let previousWord = false;
    for (let i = 0; i < length && at <= this.stopAfter;) {
      let codePoint = text.charCodeAt(i);
      let units = 1;
      if (codePoint >= 0xd800 && codePoint <= 0xdbff && i + 1 < length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          codePoint = (codePoint - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          units = 2;
        }
      }
      const word = codePoint < 0x80 ? ASCII_WORD[codePoint] === 1 : isWordCodePoint(codePoint);
      if (word !== previousWord) {
        previousWord = word;
        ring[at++ & ringMask] = i * 2;
        state = this.next(state, BOUNDARY);
        if (outHead[state]! >= 0) this.report(state, at, i);
      }
      let symbol = codePoint < 0x80 ? ascii[codePoint]! : lookup.symbolOf(codePoint);
      let startsHere = true;
      if (symbol < 0) {
        // A full folding (ß -> s s): every symbol moves the automaton, but an occurrence can neither
        // start after its first symbol nor end before its last, so only the last one may report.
        const sequence = lookup.sequences[-1 - symbol]!;
        for (let k = 0; k < sequence.length - 1; k++) {
          ring[at++ & ringMask] = k === 0 ? i * 2 : i * 2 + 1;
          state = this.next(state, sequence[k]!);
        }
        symbol = sequence[sequence.length - 1]!;
        startsHere = false;
      }
      ring[at++ & ringMask] = startsHere ? i * 2 : i * 2 + 1;
      state = this.next(state, symbol);
      i += units;
      if (outHead[state]! >= 0) this.report(state, at, i);
    }
    if (previousWord && at <= this.stopAfter) {
      ring[at++ & ringMask] = length * 2;
      state = this.next(state, BOUNDARY);
      if (outHead[state]! >= 0) this.report(state, at, length);
    }
  }

  private next(from: number, symbol: number): number {
    if (symbol === OTHER) return 0; // in no keyword
    if (this.dense) return this.dense[from * this.width + symbol]!;
    if (from === 0) return this.rootNext[symbol]!;
    const { edges, fail } = this;
    for (let state = from; state !== 0; state = fail[state]!) {
      const child = edges.get(state, symbol);
      if (child !== 0) return child;
    }
    return this.rootNext[symbol]!;
  }

  /** The occurrences that end after `at` symbols (at `end` in the text), longest first. */
  private report(state: number, at: number, end: number): void {
    const { ring, ringMask, nodeFilter, nodeOrder, nodeLength, bestAt, bestKey, bestOrder } = this;
    for (let node = this.firstLive(this.outHead[state]!, at); node >= 0; node = this.firstLive(this.nodeNext[node]!, at)) {
      const filter = nodeFilter[node]!;
      const startAt = at - nodeLength[node]!;
      const key = ring[startAt & ringMask]!;
      if (key & 1) continue; // inside a character's full folding
      if (bestAt[filter]! < 0 && --this.undecided === 0) this.stopAfter = this.latestStart(startAt) + this.longest + 1;
      bestAt[filter] = startAt;
      bestKey[filter] = key;
      bestOrder[filter] = nodeOrder[node]!;
      this.matchStart[filter] = key >> 1;
      this.matchEnd[filter] = end;
    }
  }

  /**
   * Once every filter has a match, none can improve after the latest of them plus the longest keyword
   * (plus one: a keyword that starts with `\b` starts a symbol earlier at the same place in the text).
   */
  private latestStart(candidate: number): number {
    let latest = candidate;
    for (const at of this.bestAt) latest = Math.max(latest, at);
    return latest;
  }

  /**
   * Whether the node's occurrence ending after `at` symbols, or any later one, cannot be its filter's
   * match: it starts later in the text, or at the same place as a keyword listed before it. Positions
   * are compared by ring key (twice the text index, plus one inside a full folding), which never
   * decreases along the stream, so a spent node stays spent.
   */
  private isSpent(node: number, at: number): boolean {
    const filter = this.nodeFilter[node]!;
    if (this.bestAt[filter]! < 0) return false;
    const key = this.ring[(at - this.nodeLength[node]!) & this.ringMask]!;
    const best = this.bestKey[filter]!;
    return key > best || (key === best && this.nodeOrder[node]! >= this.bestOrder[filter]!);
  }

  /** The first node from `node` on that is not spent, compressing the path to it; -1 at the list's end. */
  private firstLive(node: number, at: number): number {
    const { stamp, jump, nodeNext, generation } = this;
    let live = node;
    while (live >= 0 && this.isSpent(live, at)) live = stamp[live] === generation ? jump[live]! : nodeNext[live]!;
    for (let spent = node; spent !== live;) {
      const following = stamp[spent] === generation ? jump[spent]! : nodeNext[spent]!;
      stamp[spent] = generation;
      jump[spent] = live;
      spent = following;
    }
    return live;
  }
}
