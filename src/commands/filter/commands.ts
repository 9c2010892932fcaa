import type { AccountUsage } from './filter-limits.ts';

/**
 * Commands carry raw, already type-checked input: values like an unknown action string are still
 * possible here, because judging them (with Mastodon's messages) is the decider's job.
 */
export interface KeywordDraft {
  readonly id: string;
  readonly keyword: string;
  readonly wholeWord: boolean;
}

export interface KeywordChange {
  readonly id: string;
  readonly keyword?: string;
  readonly wholeWord?: boolean;
}

export interface SettingsInput {
  readonly title: string;
  readonly context: readonly string[];
  readonly action: string;
  readonly expiresAt: string | null;
}

/** Keyword errors read "Keywords keyword ..." through keywords_attributes, "Keyword ..." on their own endpoints. */
export type KeywordLabel = 'Keyword' | 'Keywords keyword';

interface Addressed {
  readonly filterId: string;
  readonly accountId: string;
  /** ISO-8601; the decider never reads a clock. */
  readonly now: string;
}

export type CreateFilter = {
  readonly type: 'CreateFilter';
  readonly data: Addressed & {
    readonly settings: SettingsInput;
    readonly keywords: readonly KeywordDraft[];
    /** What the account's other filters hold, for the per-account limits (absent: not judged). */
    readonly accountUsage?: AccountUsage;
  };
};

export type UpdateFilter = {
  readonly type: 'UpdateFilter';
  readonly data: Addressed & {
    readonly settings?: Partial<SettingsInput>;
    readonly addKeywords?: readonly KeywordDraft[];
    readonly changeKeywords?: readonly KeywordChange[];
    readonly removeKeywords?: readonly string[];
    readonly keywordLabel?: KeywordLabel;
    /** v1 may not change filter-level settings of a filter holding several keywords. */
    readonly legacySingleKeywordGuard?: boolean;
    /** What the account's other filters hold, for the per-account limits (absent: not judged). */
    readonly accountUsage?: AccountUsage;
  };
};

export type FilterStatus = {
  readonly type: 'FilterStatus';
  readonly data: Addressed & { readonly filterStatusId: string; readonly statusId: string };
};

export type UnfilterStatus = {
  readonly type: 'UnfilterStatus';
  readonly data: Addressed & { readonly filterStatusId: string };
};

export type DeleteFilter = {
  readonly type: 'DeleteFilter';
  readonly data: Addressed;
};

/** A status filtered before the import, with its filter-status id and the time Mastodon filtered it. */
export interface ImportedStatus {
  readonly id: string;
  readonly statusId: string;
  readonly filteredAt: string;
}

/**
 * A filter Mastodon held before the switch (`mastodon import`), taken into the log whole, with
 * Mastodon's ids and times; judged by the rules and limits a create is judged by.
 */
export type ImportFilter = {
  readonly type: 'ImportFilter';
  readonly data: Addressed & {
    readonly settings: SettingsInput;
    readonly keywords: readonly KeywordDraft[];
    readonly statuses: readonly ImportedStatus[];
    /** Mastodon's created_at of the filter, and the last time any of its keywords was saved. */
    readonly createdAt: string;
    readonly keywordsUpdatedAt: string;
    /** What the account's other filters hold, for the per-account limits (absent: not judged). */
    readonly accountUsage?: AccountUsage;
  };
};

export type FilterCommand = CreateFilter | UpdateFilter | FilterStatus | UnfilterStatus | DeleteFilter | ImportFilter;
