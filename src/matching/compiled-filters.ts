import { foldString } from './case-folding.ts';
import { filterResultFilterJson, type FilterResult, type FilterResultFilter } from './filter-result.ts';
import { KeywordAutomaton } from './keyword-automaton.ts';
import type { KeywordScan } from './keyword-scan.ts';
import type { AutomatonKeyword } from './keyword-automaton-build.ts';
import { runAtOnce, runInSlices, WORK_PER_STEP, type Steps } from './paced-steps.ts';
import { searchableText, type MatchableStatus } from './searchable-text.ts';

/** What matching needs of a filter; the v2 read model's FilterView has this shape. */
export interface MatchableFilter {
  readonly id: string;
  readonly title: string;
  readonly context: readonly string[];
  readonly filterAction: string;
  readonly expiresAt: string | null;
  readonly keywords: readonly { readonly keyword: string; readonly wholeWord: boolean }[];
  readonly statuses: readonly { readonly statusId: string }[];
}

interface CompiledFilter {
  readonly json: FilterResultFilter;
  readonly context: readonly string[];
  /** Milliseconds; Infinity when the filter never expires. */
  readonly expiresAt: number;
  readonly hasKeywords: boolean;
  /** Null when the filter has no status rules. */
  readonly statusIds: ReadonlySet<string> | null;
}

export interface MatchOptions {
  /** Keeps only the filters for this context; Mastodon itself applies every active filter. */
  readonly context?: string;
  /** Milliseconds since the epoch: filters that expired by then do not apply. */
  readonly now: number;
}

/** Work units (characters, output nodes looked at) between two yields of a scan. */
const SCAN_BUDGET = 4 * WORK_PER_STEP;

const isActive = (expiresAt: number, now: number) => expiresAt > now;

/**
 * One account's filters compiled into one matcher, applied as Mastodon's CustomFilter does
 * (`cached_filters_for` + `apply_cached_filters`): every keyword of every filter is looked for in one
 * pass over the status's text, and each filter reports its first match as it appears in the text.
 */
export class CompiledFilters {
  private constructor(
    private readonly filters: readonly CompiledFilter[],
    private readonly keywordCount: number,
    private readonly automaton: KeywordAutomaton,
  ) {}

  /**
   * Filters already expired at `now` are left out (time only moves on); the rest are checked again
   * at match time, so a filter that expires while compiled stops applying.
   */
  static compile(filters: readonly MatchableFilter[], now: number): CompiledFilters {
    return runAtOnce(CompiledFilters.compileSteps(filters, now));
  }

  /** As compile, in slices of a few milliseconds: other requests are served while a large matcher is built. */
  static compileInSlices(filters: readonly MatchableFilter[], now: number): Promise<CompiledFilters> {
    return runInSlices(CompiledFilters.compileSteps(filters, now));
  }

  private static *compileSteps(filters: readonly MatchableFilter[], now: number): Steps<CompiledFilters> {
    const active = filters
      .map((filter) => ({ filter, expiresAt: filter.expiresAt === null ? Infinity : Date.parse(filter.expiresAt) }))
      .filter(({ filter, expiresAt }) => isActive(expiresAt, now) && (filter.keywords.length > 0 || filter.statuses.length > 0));
    // Mastodon lists filters with keywords first, then those with only status rules (its order within
    // each group is the database's); here each group is in creation (id) order.
    const ordered = [...active.filter((a) => a.filter.keywords.length > 0), ...active.filter((a) => a.filter.keywords.length === 0)];
    const compiled: CompiledFilter[] = [];
    const keywords: AutomatonKeyword[] = [];
    let work = 0;
    for (const { filter, expiresAt } of ordered) {
      const index = compiled.length;
      compiled.push({
        json: filterResultFilterJson(filter),
        context: filter.context,
        expiresAt,
        hasKeywords: filter.keywords.length > 0,
        statusIds: filter.statuses.length > 0 ? new Set(filter.statuses.map((s) => s.statusId)) : null,
      });
      for (let order = 0; order < filter.keywords.length; order++) {
        const { keyword, wholeWord } = filter.keywords[order]!;
        keywords.push({ folded: foldString(keyword), filter: index, order, wholeWord });
        if ((work += keyword.length + 1) >= WORK_PER_STEP) {
          work = 0;
          yield;
        }
      }
      if ((work += filter.statuses.length + 1) >= WORK_PER_STEP) {
        work = 0;
        yield;
      }
    }
    const automaton = yield* KeywordAutomaton.build(keywords, compiled.length);
    return new CompiledFilters(compiled, keywords.length, automaton);
  }

  /** Roughly what this matcher holds in memory, in 4-byte units: the cache's measure. */
  get size(): number {
    return this.automaton.size + this.keywordCount * 2 + this.filters.length * 32;
  }

  /** The FilterResults of one status, in filter order; empty when no filter applies. */
  match(status: MatchableStatus, options: MatchOptions): FilterResult[] {
    if (this.filters.length === 0) return [];
    const text = this.keywordCount > 0 ? searchableText(status) : '';
    const scan = text !== '' ? this.automaton.startScan(text) : null;
    scan?.advance(Infinity);
    return this.results(status, options, text, scan);
  }

  /** As match, yielding every SCAN_BUDGET units of work (see KeywordScan). */
  *matchSteps(status: MatchableStatus, options: MatchOptions): Steps<FilterResult[]> {
    if (this.filters.length === 0) return [];
    const text = this.keywordCount > 0 ? searchableText(status) : '';
    const scan = text !== '' ? this.automaton.startScan(text) : null;
    if (scan) while (!scan.advance(SCAN_BUDGET)) yield;
    return this.results(status, options, text, scan);
  }

  /** The results from a finished scan of the status's text (null: no keywords), which goes back to the automaton. */
  private results(status: MatchableStatus, options: MatchOptions, text: string, scan: KeywordScan | null): FilterResult[] {
    const { filters } = this;
    const results: FilterResult[] = [];
    for (let f = 0; f < filters.length; f++) {
      const filter = filters[f]!;
      if (!isActive(filter.expiresAt, options.now)) continue;
      if (options.context !== undefined && !filter.context.includes(options.context)) continue;
      const start = scan ? scan.matchStart[f]! : -1;
      const keywordMatches = filter.hasKeywords && start >= 0 ? [text.slice(start, scan!.matchEnd[f])] : null;
      const statusMatches = filter.statusIds ? statusRuleMatches(filter.statusIds, status) : null;
      if (keywordMatches === null && (statusMatches === null || statusMatches.length === 0)) continue;
      results.push({ filter: filter.json, keyword_matches: keywordMatches, status_matches: statusMatches });
    }
    if (scan) this.automaton.release(scan);
    return results;
  }
}

/** `[status.id, status.reblog_of_id].compact & status_ids`, as strings. */
function statusRuleMatches(statusIds: ReadonlySet<string>, status: MatchableStatus): string[] {
  const matches: string[] = [];
  if (statusIds.has(status.id)) matches.push(status.id);
  const reblogOf = status.reblog_of_id;
  if (reblogOf !== undefined && reblogOf !== null && reblogOf !== status.id && statusIds.has(reblogOf)) matches.push(reblogOf);
  return matches;
}
