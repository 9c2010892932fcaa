import { foldString } from './case-folding.ts';
import { filterResultFilterJson, type FilterResult, type FilterResultFilter } from './filter-result.ts';
import { KeywordAutomaton } from './keyword-automaton.ts';
import { searchableText, type MatchableStatus } from './searchable-text.ts';
import { endsWithWordCharacter, isWordBoundary, startsWithWordCharacter } from './word-characters.ts';

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

interface CompiledKeyword {
  readonly filter: number;
  /** Position among its filter's keywords: at one start position the first keyword wins (Regexp.union). */
  readonly order: number;
  readonly boundaryBefore: boolean;
  readonly boundaryAfter: boolean;
}

export interface MatchOptions {
  /** Keeps only the filters for this context; Mastodon itself applies every active filter. */
  readonly context?: string;
  /** Milliseconds since the epoch: filters that expired by then do not apply. */
  readonly now: number;
}

const isActive = (expiresAt: number, now: number) => expiresAt > now;

/**
 * One account's filters compiled into one matcher, applied as Mastodon's CustomFilter does
 * (`cached_filters_for` + `apply_cached_filters`): every keyword of every filter is looked for in one
 * pass over the status's text, and each filter reports its first match as it appears in the text.
 */
export class CompiledFilters {
  private readonly firstStart: Int32Array;
  private readonly firstOrder: Int32Array;
  private readonly firstEnd: Int32Array;

  private constructor(
    private readonly filters: readonly CompiledFilter[],
    private readonly keywords: readonly CompiledKeyword[],
    private readonly automaton: KeywordAutomaton,
  ) {
    this.firstStart = new Int32Array(filters.length);
    this.firstOrder = new Int32Array(filters.length);
    this.firstEnd = new Int32Array(filters.length);
  }

  /**
   * Filters already expired at `now` are left out (time only moves on); the rest are checked again
   * at match time, so a filter that expires while compiled stops applying.
   */
  static compile(filters: readonly MatchableFilter[], now: number): CompiledFilters {
    const active = filters
      .map((filter) => ({ filter, expiresAt: filter.expiresAt === null ? Infinity : Date.parse(filter.expiresAt) }))
      .filter(({ filter, expiresAt }) => isActive(expiresAt, now) && (filter.keywords.length > 0 || filter.statuses.length > 0));
    // Mastodon lists filters with keywords first, then those with only status rules (its order within
    // each group is the database's); here each group is in creation (id) order.
    const ordered = [...active.filter((a) => a.filter.keywords.length > 0), ...active.filter((a) => a.filter.keywords.length === 0)];
    const compiled: CompiledFilter[] = [];
    const keywords: CompiledKeyword[] = [];
    const folded: number[][] = [];
    for (const { filter, expiresAt } of ordered) {
      const index = compiled.length;
      compiled.push({
        json: filterResultFilterJson(filter),
        context: filter.context,
        expiresAt,
        hasKeywords: filter.keywords.length > 0,
        statusIds: filter.statuses.length > 0 ? new Set(filter.statuses.map((s) => s.statusId)) : null,
      });
      filter.keywords.forEach(({ keyword, wholeWord }, order) => {
        keywords.push({
          filter: index,
          order,
          boundaryBefore: wholeWord && startsWithWordCharacter(keyword),
          boundaryAfter: wholeWord && endsWithWordCharacter(keyword),
        });
        folded.push(foldString(keyword));
      });
    }
    return new CompiledFilters(compiled, keywords, KeywordAutomaton.build(folded));
  }

  /** Roughly what this matcher holds in memory, in 4-byte units: the cache's measure. */
  get size(): number {
    return this.automaton.size + this.keywords.length * 8 + this.filters.length * 32;
  }

  /** The FilterResults of one status, in filter order; empty when no filter applies. */
  match(status: MatchableStatus, options: MatchOptions): FilterResult[] {
    const { filters } = this;
    const results: FilterResult[] = [];
    if (filters.length === 0) return results;
    const text = this.keywords.length > 0 ? searchableText(status) : '';
    if (text !== '') this.findFirstMatches(text);
    for (let f = 0; f < filters.length; f++) {
      const filter = filters[f]!;
      if (!isActive(filter.expiresAt, options.now)) continue;
      if (options.context !== undefined && !filter.context.includes(options.context)) continue;
      const keywordMatches = filter.hasKeywords && text !== '' && this.firstStart[f]! >= 0 ? [text.slice(this.firstStart[f], this.firstEnd[f])] : null;
      const statusMatches = filter.statusIds ? statusRuleMatches(filter.statusIds, status) : null;
      if (keywordMatches === null && (statusMatches === null || statusMatches.length === 0)) continue;
      results.push({ filter: filter.json, keyword_matches: keywordMatches, status_matches: statusMatches });
    }
    return results;
  }

  /** Leaves, per filter, the leftmost match (first keyword at a tie) in firstStart/firstEnd, or -1. */
  private findFirstMatches(text: string): void {
    const { firstStart, firstOrder, firstEnd, keywords } = this;
    firstStart.fill(-1);
    this.automaton.scan(text, (index, start, end) => {
      const keyword = keywords[index]!;
      const f = keyword.filter;
      const best = firstStart[f]!;
      if (best >= 0 && (best < start || (best === start && firstOrder[f]! < keyword.order))) return;
      if (keyword.boundaryBefore && !isWordBoundary(text, start)) return;
      if (keyword.boundaryAfter && !isWordBoundary(text, end)) return;
      firstStart[f] = start;
      firstOrder[f] = keyword.order;
      firstEnd[f] = end;
    });
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
