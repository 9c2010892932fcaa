import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';

/** One place where a live read model holds something other than what the log replays to. */
export interface Drift {
  readonly account: string;
  readonly filter: string;
  readonly model: 'v1' | 'v2';
  /** The v1 record's id (its keyword's); absent for v2. */
  readonly keyword?: string;
  /** The field that differs; `exists` when the whole row is missing on one side. */
  readonly field: string;
  readonly live: unknown;
  readonly log: unknown;
}

/** One account's rows in one generation: its live filters (v2) and their v1 records. */
export interface AccountModels {
  readonly views: readonly FilterView[];
  readonly v1: readonly V1FilterRecord[];
}

const V2_FIELDS = ['accountId', 'title', 'context', 'filterAction', 'expiresAt', 'revision'] as const;
const V1_FIELDS = ['accountId', 'filterId', 'phrase', 'context', 'wholeWord', 'expiresAt', 'irreversible'] as const;

// Rows are plain JSON values: equal when they print alike (small: limits bound every row).
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A list of records with ids: each id's record compared field by field, then their order. */
function listDrift<T extends { readonly id: string }>(
  name: string,
  live: readonly T[],
  log: readonly T[],
  fields: readonly (keyof T)[],
): [string, unknown, unknown][] {
  const found: [string, unknown, unknown][] = [];
  const logById = new Map(log.map((item) => [item.id, item]));
  const liveById = new Map(live.map((item) => [item.id, item]));
  for (const item of live) {
    const wanted = logById.get(item.id);
    if (!wanted) found.push([`${name}[${item.id}]`, item, null]);
    else for (const field of fields) if (!same(item[field], wanted[field])) found.push([`${name}[${item.id}].${String(field)}`, item[field], wanted[field]]);
  }
  for (const item of log) if (!liveById.has(item.id)) found.push([`${name}[${item.id}]`, null, item]);
  const order = (items: readonly T[]) => items.map((item) => item.id);
  if (found.length === 0 && !same(order(live), order(log))) found.push([`${name} (order)`, order(live), order(log)]);
  return found;
}

function viewDrift(account: string, live: FilterView | undefined, log: FilterView | undefined): Drift[] {
  const filter = (live ?? log)!.id;
  const drift = (field: string, liveValue: unknown, logValue: unknown): Drift => ({ account, filter, model: 'v2', field, live: liveValue, log: logValue });
  if (!live || !log) return [drift('exists', live !== undefined, log !== undefined)];
  const found = V2_FIELDS.filter((field) => !same(live[field], log[field])).map((field) => drift(field, live[field], log[field]));
  for (const [field, a, b] of listDrift('keywords', live.keywords, log.keywords, ['keyword', 'wholeWord'])) found.push(drift(field, a, b));
  for (const [field, a, b] of listDrift('statuses', live.statuses, log.statuses, ['statusId'])) found.push(drift(field, a, b));
  return found;
}

function recordDrift(account: string, live: V1FilterRecord | undefined, log: V1FilterRecord | undefined): Drift[] {
  const { filterId: filter, id: keyword } = (live ?? log)!;
  const drift = (field: string, liveValue: unknown, logValue: unknown): Drift => ({
    account,
    filter,
    model: 'v1',
    keyword,
    field,
    live: liveValue,
    log: logValue,
  });
  if (!live || !log) return [drift('exists', live !== undefined, log !== undefined)];
  return V1_FIELDS.filter((field) => !same(live[field], log[field])).map((field) => drift(field, live[field], log[field]));
}

/** Pairs rows of both sides by key, in the live side's order, then the log side's rows the live one lacks. */
function paired<T>(live: readonly T[], log: readonly T[], key: (row: T) => string): [T | undefined, T | undefined][] {
  const logByKey = new Map(log.map((row) => [key(row), row]));
  const liveKeys = new Set(live.map(key));
  return [
    ...live.map((row): [T, T | undefined] => [row, logByKey.get(key(row))]),
    ...log.filter((row) => !liveKeys.has(key(row))).map((row): [undefined, T] => [undefined, row]),
  ];
}

/**
 * Every difference between one account's live read models and the same models replayed from the log,
 * each naming the filter, the model, the v1 record and the field. Pure: the caller reads both sides.
 */
export function accountDrift(account: string, live: AccountModels, log: AccountModels): Drift[] {
  const found: Drift[] = [];
  for (const [a, b] of paired(live.views, log.views, (view) => view.id)) found.push(...viewDrift(account, a, b));
  for (const [a, b] of paired(live.v1, log.v1, (record) => `${record.filterId}:${record.id}`)) found.push(...recordDrift(account, a, b));
  return found;
}
