import { AccountUsageLedger } from '../commands/filter/account-usage-ledger.ts';
import type { FilterCommand } from '../commands/filter/commands.ts';
import type { EventStore } from '../events/event-store.ts';

/** One ledger (and its cache of totals) per event store, whichever routes write through it. */
const ledgers = new WeakMap<EventStore, AccountUsageLedger>();

export function usageLedgerOf(events: EventStore): AccountUsageLedger {
  let ledger = ledgers.get(events);
  if (!ledger) ledgers.set(events, (ledger = new AccountUsageLedger(events)));
  return ledger;
}

/**
 * Commands that can add a filter or keyword characters. The ledger's expected revision alone keeps the
 * limits; running one account's such commands one at a time in a process only spares them the retries
 * their conflicts on the ledger would cost.
 */
export function growsAccount(command: FilterCommand): boolean {
  if (command.type === 'CreateFilter' || command.type === 'ImportFilter') return true;
  if (command.type !== 'UpdateFilter') return false;
  return (command.data.addKeywords?.length ?? 0) > 0 || (command.data.changeKeywords ?? []).some((c) => c.keyword !== undefined);
}
