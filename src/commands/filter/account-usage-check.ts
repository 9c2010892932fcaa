import type { FilterEvent } from '../../events/filter-events.ts';
import type { UsageTotals } from '../../events/account-usage-events.ts';
import type { Logger } from '../../shared/logger.ts';
import type { CrossStreamCheck, Settlement } from '../cross-stream-check.ts';
import { filterUsage, type AccountUsageLedger, type LedgerEntry, type LedgerWrite } from './account-usage-ledger.ts';
import type { FilterCommand } from './commands.ts';
import { evolve, type FilterState } from './filter-state.ts';

const minus = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  filters: a.filters - b.filters,
  keywordCharacters: a.keywordCharacters - b.keywordCharacters,
});
const negated = (a: UsageTotals): UsageTotals => ({ filters: -a.filters, keywordCharacters: -a.keywordCharacters });

/** Commands that can change what a filter holds towards its account (statuses count per filter only). */
const countsTowardsAccount = (command: FilterCommand): boolean =>
  command.type === 'CreateFilter' || command.type === 'ImportFilter' || command.type === 'UpdateFilter' || command.type === 'DeleteFilter';

/**
 * The per-account limits (filters, keyword characters) judged where a filter's write is decided, from the
 * account's usage ledger: the decider sees the ledger's totals less this filter's own share, and a write
 * that grows the account reserves its growth on the ledger at the revision it was judged at: in the same
 * transaction as its own events where the store can (then both are stored or neither), else before them
 * (a ConcurrencyError, when another write got in between, re-runs it on fresh totals). A write that
 * shrinks the account is recorded after its append. So the ledger never counts less than the filter
 * streams hold; it counts more only while a shrink is on its way, or for good when a process dies
 * between two appends (or the store cannot say whether an append was stored). With `takesTurns`
 * (a write that may grow the account), the judgement takes the ledger's turn for the account in this
 * process from the ledger's read to the reservation's append (the joint one, where there is one), sparing
 * it the conflicts (and retries) of reading the revision another of this process's writes is about to move.
 */
export function accountUsageCheck(
  ledger: AccountUsageLedger,
  write: LedgerWrite,
  logger: Logger,
  takesTurns = false,
): CrossStreamCheck<FilterCommand, FilterState, FilterEvent> {
  let judgedAt: LedgerEntry | null = null;
  let release: (() => void) | null = null;
  const settled = (what: string, filterId: string, run: () => Promise<void>) => async () => {
    try {
      await run();
    } catch (error) {
      logger.warn(
        { err: error, accountId: write.accountId, filterId, requestId: write.requestId },
        `the usage ledger could not record ${what}; it counts high until it does`,
      );
    }
  };
  return {
    end() {
      release?.();
      release = null;
    },
    async prepare(command, state) {
      judgedAt = null;
      if (!countsTowardsAccount(command)) return command;
      // From the ledger's read to its reservation only: the filter's own append, its group commit and
      // the wait for the read models need not hold up the account's next write.
      if (takesTurns) release = await ledger.turns.acquire(write.accountId);
      judgedAt = await ledger.read(write);
      if (command.type === 'DeleteFilter') return command;
      const accountUsage = minus(judgedAt.totals, filterUsage(state));
      return { ...command, data: { ...command.data, accountUsage } } as FilterCommand;
    },
    async reserve(state, events): Promise<Settlement | null> {
      if (judgedAt === null) return null;
      const filterId = state.phase === 'none' ? (events[0]?.data.filterId ?? '') : state.filterId;
      const change = minus(filterUsage(events.reduce(evolve, state)), filterUsage(state));
      if (change.filters > 0 || change.keywordCharacters > 0) {
        if (ledger.appendsJointly) {
          // Stored with the filter's events or not at all: nothing to give back when they are not.
          const { append, stored } = ledger.reservation(write, judgedAt, filterId, change);
          return {
            alongside: append,
            appended: async (at) => {
              if (at) stored(at);
            },
            notAppended: async () => {},
          };
        }
        await ledger.change(write, judgedAt, filterId, change, 'reserved');
        return {
          appended: async () => {},
          notAppended: settled('a released reservation', filterId, () => ledger.settle(write, filterId, negated(change), 'released')),
        };
      }
      // A shrink before the ledger exists is left to the count that will create it, which sees it.
      if ((change.filters === 0 && change.keywordCharacters === 0) || judgedAt.revision === null) return null;
      return {
        appended: settled('a shrink', filterId, () => ledger.settle(write, filterId, change, 'recorded')),
        notAppended: async () => {},
      };
    },
  };
}
