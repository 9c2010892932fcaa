import type { Context } from 'koa';
import { NotFoundError } from '../commands/errors.ts';
import type { FilterState } from '../commands/filter/filter-state.ts';
import type { IdempotencyStore } from '../commands/idempotency/idempotency-store.ts';
import type { StreamStateCache } from '../commands/stream-state-cache.ts';
import type { EventStore } from '../events/event-store.ts';
import type { CatchUp } from '../projections/runtime/read-your-writes.ts';
import type { ReadStore } from '../projections/stores/read-store.ts';
import { isId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { AuthState } from './authentication.ts';
import type { Caller } from './run-filter-command.ts';
import type { ParamsState } from './request-params.ts';

export interface FilterRouteDeps {
  readonly events: EventStore;
  readonly reads: ReadStore;
  readonly catchUp: CatchUp;
  readonly logger: Logger;
  readonly catchUpTimeoutMs?: number;
  readonly filterStates?: StreamStateCache<FilterState>;
  /** Where POSTs' Idempotency-Keys are kept; without it the header is ignored. */
  readonly idempotency?: IdempotencyStore;
  /** Mastodon mode: the statuses that exist (Mastodon's); without it any bigint id may be filtered. */
  readonly statuses?: { exists(statusId: string): Promise<boolean> };
}

type RouteState = AuthState & ParamsState & { requestId: string };

export const stateOf = (ctx: Context): RouteState => ctx.state;

export const accountOf = (ctx: Context): string => stateOf(ctx).grant.account.id;

export const paramsOf = (ctx: Context): Record<string, unknown> => stateOf(ctx).params ?? {};

export function callerOf(ctx: Context, apiVersion: Caller['apiVersion']): Caller {
  const state = stateOf(ctx);
  return { accountId: state.grant.account.id, tokenId: state.grant.tokenId, requestId: state.requestId, apiVersion };
}

/** A path id that is not a plausible id cannot name a record of this account. */
export function pathId(ctx: Context, name: string): string {
  const value = (ctx.params as Record<string, string | undefined>)[name];
  if (!isId(value)) throw new NotFoundError();
  return value;
}

export function found<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new NotFoundError();
  return value;
}
