import type { FilterCommand } from '../commands/filter/commands.ts';
import type { AccountUsage } from '../commands/filter/filter-limits.ts';
import type { ReadStore } from '../projections/stores/read-store.ts';

/**
 * What the account's filters other than `filterId` hold, as the read models sum it without loading a
 * view: the per-account limits span many streams, which no single stream's decider can see. Writes wait for the read models before
 * answering and one account's growing writes run one at a time in a process, so each sees the ones
 * before it; only writers in several API processes at once can overshoot, by one request each.
 */
export async function accountUsage(reads: Pick<ReadStore, 'accountUsage'>, accountId: string, filterId: string): Promise<AccountUsage> {
  return reads.accountUsage(accountId, filterId);
}

/** Commands that can add a filter or keyword characters: only these are judged against the account. */
export function growsAccount(command: FilterCommand): boolean {
  if (command.type === 'CreateFilter') return true;
  if (command.type !== 'UpdateFilter') return false;
  return (command.data.addKeywords?.length ?? 0) > 0 || (command.data.changeKeywords ?? []).some((c) => c.keyword !== undefined);
}
