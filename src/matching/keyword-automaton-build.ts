import { EdgeTable } from './edge-table.ts';
import { WORK_PER_STEP, type Steps } from './paced-steps.ts';
import { BOUNDARY, FIRST_LETTER_SYMBOL, SymbolLookup } from './symbol-lookup.ts';
import { isWordCodePoint } from './word-characters.ts';

/** One keyword as the automaton takes it: folded code points, and whose it is. */
export interface AutomatonKeyword {
  readonly folded: readonly number[];
  readonly filter: number;
  /** Position among its filter's keywords: at one start position the first keyword wins (Regexp.union). */
  readonly order: number;
  readonly wholeWord: boolean;
}

/** What a KeywordAutomaton is made of; every array is linear in the keywords' total length. */
export interface AutomatonParts {
  readonly rootNext: Int32Array;
  readonly edges: EdgeTable;
  readonly fail: Int32Array;
  /**
   * Small automata also get the whole transition table (state x symbol -> state, failures resolved):
   * one load per symbol instead of hash probes along failure links. Only when it has at most
   * DENSE_CELLS cells, so it never holds more than a fixed 1 MiB; larger ones go by `edges` alone.
   */
  readonly dense: Int32Array | null;
  readonly width: number;
  /** Per state: its first output node (its own keywords, then those of its longest suffix state), or -1. */
  readonly outHead: Int32Array;
  readonly nodeFilter: Int32Array;
  readonly nodeOrder: Int32Array;
  /** In symbols, boundaries included: where the occurrence starts in the stream of symbols. */
  readonly nodeLength: Int32Array;
  readonly nodeNext: Int32Array;
  /** Per node: the first node after its state's own ones (which all have its length). */
  readonly groupEnd: Int32Array;
  readonly lookup: SymbolLookup;
  readonly longest: number;
  /** Filters with at least one keyword the automaton can find. */
  readonly keywordFilters: number;
}

/**
 * The keyword's symbols, with BOUNDARY wherever Ruby's `\b` holds inside it (between a word and a non-word
 * character) and, for a whole-word keyword, before it or after it when it starts or ends with a word
 * character. A character and its folding are always both word characters or both not (Unicode 15), so
 * the text's boundaries fall exactly where the keyword's do, and `\b` becomes one more symbol to match.
 */
function keywordSymbols(keyword: AutomatonKeyword, symbols: Map<number, number>): number[] {
  const out: number[] = [];
  let previousWord: boolean | undefined;
  for (const codePoint of keyword.folded) {
    const word = isWordCodePoint(codePoint);
    if (previousWord === undefined ? keyword.wholeWord && word : word !== previousWord) out.push(BOUNDARY);
    previousWord = word;
    let symbol = symbols.get(codePoint);
    if (symbol === undefined) symbols.set(codePoint, (symbol = symbols.size + FIRST_LETTER_SYMBOL));
    out.push(symbol);
  }
  if (keyword.wholeWord && previousWord === true) out.push(BOUNDARY);
  return out;
}

/**
 * Aho-Corasick in time and memory linear in the keywords' total length: a trie with hashed edges,
 * failure links in breadth-first order, and output (dictionary) links as a list per state that goes on
 * into its failure state's list. At one state, the keywords of one filter with the same text are one
 * output node (the first of them wins).
 */
export const DENSE_CELLS = 1 << 18;

export function* buildAutomaton(keywords: readonly AutomatonKeyword[]): Steps<AutomatonParts> {
  const symbols = new Map<number, number>();
  const spelled: number[][] = [];
  let total = 0;
  let work = 0;
  for (const keyword of keywords) {
    const keywordSpelled = keywordSymbols(keyword, symbols);
    spelled.push(keywordSpelled);
    total += keywordSpelled.length;
    if ((work += keywordSpelled.length + 1) >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
  }

  const rootNext = new Int32Array(symbols.size + FIRST_LETTER_SYMBOL);
  const edges = new EdgeTable(total);
  // Children as linked lists, for the breadth-first pass; 0 ends a list (the root is nobody's child).
  const firstChild = new Int32Array(total + 1);
  const nextSibling = new Int32Array(total + 1);
  const edgeSymbol = new Int32Array(total + 1);
  const ownHead = new Int32Array(total + 1).fill(-1);
  const ownTail = new Int32Array(total + 1);
  const nodeFilter: number[] = [];
  const nodeOrder: number[] = [];
  const nodeLength: number[] = [];
  const nodeNext: number[] = [];
  const filtersSeen = new Set<number>();
  let states = 1;
  let longest = 0;
  for (let k = 0; k < keywords.length; k++) {
    const keywordSpelled = spelled[k]!;
    if (keywordSpelled.length === 0) continue;
    let state = 0;
    for (const symbol of keywordSpelled) {
      let child = state === 0 ? rootNext[symbol]! : edges.get(state, symbol);
      if (child === 0) {
        child = states++;
        if (state === 0) rootNext[symbol] = child;
        else edges.add(state, symbol, child);
        edgeSymbol[child] = symbol;
        nextSibling[child] = firstChild[state]!;
        firstChild[state] = child;
      }
      state = child;
    }
    const { filter, order } = keywords[k]!;
    const head = ownHead[state]!;
    // A filter's keywords come one after the other, so an earlier one with this text is the head.
    if (head >= 0 && nodeFilter[head] === filter) continue;
    const node = nodeFilter.length;
    nodeFilter.push(filter);
    nodeOrder.push(order);
    nodeLength.push(keywordSpelled.length);
    nodeNext.push(head);
    if (head < 0) ownTail[state] = node;
    ownHead[state] = node;
    filtersSeen.add(filter);
    longest = Math.max(longest, keywordSpelled.length);
    if ((work += keywordSpelled.length + 1) >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
  }

  const fail = new Int32Array(states);
  const width = rootNext.length;
  const dense = states * width <= DENSE_CELLS ? new Int32Array(states * width) : null;
  dense?.set(rootNext);
  const outHead = new Int32Array(states).fill(-1);
  const queue = new Int32Array(states);
  let tail = 0;
  for (let child = firstChild[0]!; child !== 0; child = nextSibling[child]!) queue[tail++] = child;
  for (let head = 0; head < tail; head++) {
    const state = queue[head]!;
    // The failure state is shallower, so its list is complete: this state's own nodes go in front of it.
    const inherited = outHead[fail[state]!]!;
    if (ownHead[state]! >= 0) {
      nodeNext[ownTail[state]!] = inherited;
      outHead[state] = ownHead[state]!;
    } else {
      outHead[state] = inherited;
    }
    if (dense) {
      dense.copyWithin(state * width, fail[state]! * width, fail[state]! * width + width);
      for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!) dense[state * width + edgeSymbol[child]!] = child;
      work += width;
    }
    for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!) {
      const symbol = edgeSymbol[child]!;
      let from = fail[state]!;
      while (from !== 0 && edges.get(from, symbol) === 0) from = fail[from]!;
      fail[child] = from === 0 ? rootNext[symbol]! : edges.get(from, symbol);
      queue[tail++] = child;
    }
    if (++work >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
  }

  const groupEnd = new Int32Array(nodeNext.length);
  for (let state = 0; state < states; state++) {
    if (ownHead[state]! < 0) continue;
    const end = nodeNext[ownTail[state]!]!;
    for (let node = ownHead[state]!; node !== end; node = nodeNext[node]!) groupEnd[node] = end;
  }
  const lookup = yield* SymbolLookup.build(symbols);
  return {
    rootNext,
    edges,
    dense,
    width,
    fail,
    outHead,
    nodeFilter: Int32Array.from(nodeFilter),
    nodeOrder: Int32Array.from(nodeOrder),
    nodeLength: Int32Array.from(nodeLength),
    nodeNext: Int32Array.from(nodeNext),
    groupEnd,
    lookup,
    longest,
    keywordFilters: filtersSeen.size,
  };
}
