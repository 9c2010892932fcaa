import type { AutomatonParts } from './keyword-automaton-build.ts';
import { BOUNDARY, OTHER } from './symbol-lookup.ts';
import { isWordCodePoint } from './word-characters.ts';

const ASCII_WORD = Uint8Array.from({ length: 0x80 }, (_, c) => (isWordCodePoint(c) ? 1 : 0));

/**
 * One pass of a KeywordAutomaton over one text, resumable: `advance` goes on for a budget of work units
 * (a character, or an output node looked at) and says whether the text is done, so that a caller can
 * let the event loop turn between two budgets whatever the text and the keywords are. Scans of one
 * automaton do not share state, so two requests can be in the middle of theirs at once.
 */
export class KeywordScan {
  /** Once done: per filter, where its first match starts and ends in the text (UTF-16), or -1. */
  readonly matchStart: Int32Array;
  readonly matchEnd: Int32Array;
  /** Per filter: the match's start in the stream of symbols, its ring key, and its keyword's order. */
  private readonly bestAt: Int32Array;
  private readonly bestKey: Int32Array;
  private readonly bestOrder: Int32Array;
  /** Per stream position (modulo its size, more than the longest keyword): twice the text index, plus one inside a full folding. */
  private readonly ring: Int32Array;
  private readonly ringMask: number;
  /** Skip pointers of this scan: valid where `stamp` is this scan's `generation`. */
  private readonly stamp: Int32Array;
  private readonly jump: Int32Array;
  private generation = 0;
  private undecided = 0;
  private stopAfter = Infinity;
  private work = 0;
  // Where the scan is: the text, the next character, the symbols fed so far, the state, the last character's kind.
  private text = '';
  private index = 0;
  private fed = 0;
  private state = 0;
  private previousWord = false;

  constructor(
    private readonly parts: AutomatonParts,
    filterCount: number,
  ) {
    this.matchStart = new Int32Array(filterCount);
    this.matchEnd = new Int32Array(filterCount);
    this.bestAt = new Int32Array(filterCount);
    this.bestKey = new Int32Array(filterCount);
    this.bestOrder = new Int32Array(filterCount);
    let ringSize = 1;
    while (ringSize <= parts.longest) ringSize *= 2;
    this.ring = new Int32Array(ringSize);
    this.ringMask = ringSize - 1;
    this.stamp = new Int32Array(parts.nodeFilter.length);
    this.jump = new Int32Array(parts.nodeFilter.length);
  }

  /** In 4-byte units. */
  get size(): number {
    return this.ring.length + this.stamp.length * 2 + this.matchStart.length * 5;
  }

  start(text: string): void {
    this.matchStart.fill(-1);
    this.bestAt.fill(-1);
    this.undecided = this.parts.keywordFilters;
    this.stopAfter = Infinity;
    if (++this.generation === 0x40000000) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    this.text = text;
    this.index = 0;
    this.fed = 0;
    this.state = 0;
    this.previousWord = false;
  }

  /** Goes on for about `budget` units of work; true once the whole text is scanned. */
  advance(budget: number): boolean {
    const { ring, ringMask } = this;
    const { lookup, outHead } = this.parts;
    const { ascii } = lookup;
    const text = this.text;
    const length = text.length;
    let { state, fed: at, previousWord, index: i } = this;
    this.work = 0;
    for (; i < length && at <= this.stopAfter && this.work < budget; this.work++) {
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
    this.state = state;
    this.fed = at;
    this.previousWord = previousWord;
    this.index = i;
    if (i < length && at <= this.stopAfter) return false;
    if (previousWord && at <= this.stopAfter) {
      ring[at++ & ringMask] = length * 2;
      state = this.next(state, BOUNDARY);
      if (outHead[state]! >= 0) this.report(state, at, length);
    }
    this.text = '';
    return true;
  }

  private next(from: number, symbol: number): number {
    if (symbol === OTHER) return 0; // in no keyword
    const { dense, edges, fail } = this.parts;
    if (dense) return dense[from * this.parts.width + symbol]!;
    if (from === 0) return this.parts.rootNext[symbol]!;
    for (let state = from; state !== 0; state = fail[state]!) {
      const child = edges.get(state, symbol);
      if (child !== 0) return child;
    }
    return this.parts.rootNext[symbol]!;
  }

  /** The occurrences that end after `at` symbols (at `end` in the text), longest first. */
  private report(state: number, at: number, end: number): void {
    const { ring, ringMask, bestAt, bestKey, bestOrder } = this;
    const { nodeFilter, nodeOrder, nodeLength, nodeNext, outHead, groupEnd } = this.parts;
    let node = outHead[state]!;
    while (node >= 0) {
      const startAt = at - nodeLength[node]!;
      const key = ring[startAt & ringMask]!;
      if (key & 1) {
        // Inside a character's full folding: so is every node of this state (one length), skipped at once.
        this.work++;
        node = groupEnd[node]!;
        continue;
      }
      if (this.isSpent(node, at)) {
        node = this.firstLive(node, at);
        continue;
      }
      const filter = nodeFilter[node]!;
      if (bestAt[filter]! < 0 && --this.undecided === 0) this.stopAfter = this.latestStart(startAt) + this.parts.longest + 1;
      bestAt[filter] = startAt;
      bestKey[filter] = key;
      bestOrder[filter] = nodeOrder[node]!;
      this.matchStart[filter] = key >> 1;
      this.matchEnd[filter] = end;
      node = nodeNext[node]!;
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
    this.work++;
    const { nodeFilter, nodeLength, nodeOrder } = this.parts;
    const filter = nodeFilter[node]!;
    if (this.bestAt[filter]! < 0) return false;
    const key = this.ring[(at - nodeLength[node]!) & this.ringMask]!;
    const best = this.bestKey[filter]!;
    return key > best || (key === best && nodeOrder[node]! >= this.bestOrder[filter]!);
  }

  /** The first node from `node` on that is not spent, compressing the path to it; -1 at the list's end. */
  private firstLive(node: number, at: number): number {
    const { stamp, jump, generation } = this;
    const { nodeNext } = this.parts;
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
