import { buildAutomaton, type AutomatonKeyword, type AutomatonParts } from './keyword-automaton-build.ts';
import { KeywordScan } from './keyword-scan.ts';
import type { Steps } from './paced-steps.ts';

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
 * The start of an occurrence is read from a ring of the last `longest` symbols' positions. Scans are
 * resumable (keyword-scan.ts); the automaton itself is never changed by one.
 */
export class KeywordAutomaton {
  /** Scans not in use, kept for the next texts: a scan's arrays are as large as the keywords. */
  private readonly idle: KeywordScan[] = [];

  private constructor(
    private readonly parts: AutomatonParts,
    private readonly filterCount: number,
  ) {
    this.idle.push(new KeywordScan(parts, filterCount));
  }

  static *build(keywords: readonly AutomatonKeyword[], filterCount: number): Steps<KeywordAutomaton> {
    return new KeywordAutomaton(yield* buildAutomaton(keywords), filterCount);
  }

  /** Roughly what the automaton holds, in 4-byte units: the cache's measure. */
  get size(): number {
    const { parts } = this;
    const perNode = 5;
    const scan = this.idle[0]?.size ?? 0;
    return (
      parts.rootNext.length +
      (parts.dense?.length ?? 0) +
      parts.edges.size +
      parts.fail.length * 2 +
      parts.nodeFilter.length * perNode +
      parts.lookup.size +
      scan
    );
  }

  /** A scan of `text`, to `advance` until done and then `release`. */
  startScan(text: string): KeywordScan {
    const scan = this.idle.pop() ?? new KeywordScan(this.parts, this.filterCount);
    scan.start(text);
    return scan;
  }

  /** One idle scan is kept; the others (of requests that overlapped) are left to the garbage collector. */
  release(scan: KeywordScan): void {
    if (this.idle.length === 0) this.idle.push(scan);
  }
}
