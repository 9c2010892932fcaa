/**
 * The ledger of what an account's filters hold, for the per-account limits (docs/api.md "Limits"): one
 * stream per account, `filterusage-<accountId>`, outside the `filter-` category (the projector and the
 * auditor's per-account history skip it; the whole log shows it). Each event carries the totals after it,
 * so the ledger's state is its last event and a reader that cached a revision reads only what follows.
 */
export const USAGE_CATEGORY = 'filterusage';

export const usageStream = (accountId: string): string => `${USAGE_CATEGORY}-${accountId}`;

export interface UsageTotals {
  readonly filters: number;
  readonly keywordCharacters: number;
}

/**
 * `reserved`: written before the filter's append, judged against the limits; `released`: that append
 * stored nothing; `recorded`: written after an append that shrank the account. The first one of an
 * account's ledger adds its change to the account's filters as counted from the log then.
 */
export type AccountUsageChanged = {
  readonly type: 'AccountUsageChanged';
  readonly data: UsageTotals & {
    readonly accountId: string;
    readonly filterId: string;
    readonly reason: 'reserved' | 'released' | 'recorded';
    readonly change: UsageTotals;
    readonly changedAt: string;
  };
};

export type AccountUsageEvent = AccountUsageChanged;

export const ACCOUNT_USAGE_EVENT_TYPES: readonly AccountUsageEvent['type'][] = ['AccountUsageChanged'];

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The totals a stored ledger event carries; null for anything else (which the ledger refuses to guess past). */
export function totalsOf(type: string, data: unknown): UsageTotals | null {
  if (!(ACCOUNT_USAGE_EVENT_TYPES as readonly string[]).includes(type) || typeof data !== 'object' || data === null) return null;
  const { filters, keywordCharacters } = data as Partial<UsageTotals>;
  return isCount(filters) && isCount(keywordCharacters) ? { filters, keywordCharacters } : null;
}
