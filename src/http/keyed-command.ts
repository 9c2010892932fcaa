import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { FilterCommand } from '../commands/filter/commands.ts';
import type { IdempotencyStore } from '../commands/idempotency/idempotency-store.ts';
import type { CommandRun } from './run-filter-command.ts';

export interface KeyedStart<C extends FilterCommand> {
  /** The command to run: the one this request built, or the one its Idempotency-Key started before. */
  readonly command: C;
  readonly run: CommandRun;
}

/**
 * Mastodon's `Idempotency-Key` on a POST (PostStatusService keeps `idempotency:status:<account>:<key>`
 * for an hour and answers a repeated key with the record the first request made). Here the key, per
 * account and per method and path, holds the command the first request started, with the ids it minted
 * and its time: a repeat runs that command again, which finds its events already stored (it never writes
 * twice, even when the first answer was lost to a timeout) and answers with the record as it is now.
 * Without the header, or without a store, the request's own command runs under a fresh command id.
 */
export async function keyedCommand<C extends FilterCommand>(ctx: Context, store: IdempotencyStore | undefined, fresh: C): Promise<KeyedStart<C>> {
  const key = ctx.get('idempotency-key');
  const startedAtMs = Date.parse(fresh.data.now);
  const own = { commandId: randomUUID(), startedAtMs };
  if (key === '' || !store) return { command: fresh, run: { ...own, mayHaveRun: false } };
  const scope = `${ctx.method} ${ctx.path}`;
  const claim = await store.claim({ accountId: fresh.data.accountId, scope, key }, { ...own, command: fresh }, Date.now());
  if (!claim.repeated) return { command: fresh, run: { ...own, mayHaveRun: false } };
  const { commandId, startedAtMs: firstStarted, command } = claim.keyed;
  // The record was written by this route for this account, so it holds a command of this route's kind.
  return { command: command as C, run: { commandId, startedAtMs: firstStarted, mayHaveRun: true } };
}
