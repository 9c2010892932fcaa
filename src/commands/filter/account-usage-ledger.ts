import { usageStream, totalsOf, type AccountUsageEvent, type UsageTotals } from '../../events/account-usage-events.ts';
import { eventHistory } from '../../events/event-history.ts';
import { ConcurrencyError, type AppendResult, type EventStore, type RecordedEvent, type StreamAppend } from '../../events/event-store.ts';
import { readFilterEvent } from '../../events/filter-event-versions.ts';
import { filterIdOfStream } from '../../events/filter-events.ts';
import { asyncRetry } from '../../shared/async-retry.ts';
import { isErrorNamed } from '../../shared/error-by-name.ts';
import { KeyedLock } from '../../shared/keyed-lock.ts';
import { LOST_RACE_BACK_OFF } from '../handle-command.ts';
import { StreamStateCache } from '../stream-state-cache.ts';
import { evolve, initialState, type FilterState } from './filter-state.ts';
import { keywordCharacters } from './filter-limits.ts';

/** The ledger's totals as of one revision of its stream (null: no ledger yet, counted from the log). */
export interface LedgerEntry {
  readonly revision: bigint | null;
  readonly totals: UsageTotals;
}

/** Why an append was made, for the ledger event's metadata. */
export interface LedgerWrite {
  readonly accountId: string;
  readonly requestId: string;
}

/** Tries of a change that must land whatever other writers append meanwhile (a release, a shrink). */
const SETTLE_ATTEMPTS = 8;

/** What one filter holds towards the account's totals. */
export function filterUsage(state: FilterState): UsageTotals {
  return state.phase === 'active' ? { filters: 1, keywordCharacters: keywordCharacters(state.keywords) } : { filters: 0, keywordCharacters: 0 };
}

const plus = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  filters: a.filters + b.filters,
  keywordCharacters: a.keywordCharacters + b.keywordCharacters,
});

export const isConflict = (error: unknown): boolean => isErrorNamed(error, ConcurrencyError);

/**
 * The per-account usage ledger (account-usage-events.ts) on an event store: read through a cache of the
 * last revision seen, so a write reads only the ledger events appended since, and appended with the
 * revision it was judged at, so two writers (in one process or several) never both pass a limit.
 */
export class AccountUsageLedger {
  private readonly states = new StreamStateCache<UsageTotals>({ maxWeight: 100_000 });
  /**
   * Per account, this process's writes to the ledger take turns: a growing write's judgement from its
   * read to its reservation (account-usage-check.ts), and each settle whole. So they never conflict with
   * one another, only with other processes' (deletes racing on one account lost rounds to each other,
   * and a settle that lost 8 gave up, leaving the account counted high for good), and `owed` is read
   * and cleared by one settle at a time.
   */
  readonly turns = new KeyedLock();
  /** Per account, the settled changes whose every try lost its race: surely not stored, carried by the next settle. */
  private readonly owed = new Map<string, UsageTotals>();

  constructor(private readonly events: EventStore) {}

  /**
   * The account's totals now. A ledger that does not exist yet is counted from the log (revision null):
   * nothing is written until a change is, so a refused request writes nothing.
   */
  async read(write: LedgerWrite): Promise<LedgerEntry> {
    const stream = usageStream(write.accountId);
    const cached = this.states.get(stream);
    const last = await this.lastEvent(stream, cached?.revision);
    if (last) {
      const totals = totalsOf(last.type, last.data);
      if (!totals) throw new TypeError(`${stream} revision ${last.revision}: not a usage ledger event (${last.type})`);
      this.states.remember(stream, last.revision, totals);
      return { revision: last.revision, totals };
    }
    if (cached) return { revision: cached.revision, totals: cached.state };
    return { revision: null, totals: await this.countFromLog(write.accountId) };
  }

  /** Appends `change` to the totals of `at`; a ConcurrencyError when the ledger moved since. */
  async change(write: LedgerWrite, at: LedgerEntry, filterId: string, change: UsageTotals, reason: 'reserved' | 'released' | 'recorded'): Promise<LedgerEntry> {
    const { append, stored } = this.reservation(write, at, filterId, change, reason);
    return stored(await this.events.appendToStream(append.streamName, append.events, append.expected));
  }

  /** Whether the ledger's store appends a reservation in one transaction with the filter's events (EventStore.appendWith). */
  get appendsJointly(): boolean {
    return typeof this.events.appendWith === 'function';
  }

  /**
   * `change` to the totals of `at` as an append for the caller to make (alone, or with a filter's events),
   * and `stored`, which keeps the totals it made once it is stored.
   */
  reservation(
    write: LedgerWrite,
    at: LedgerEntry,
    filterId: string,
    change: UsageTotals,
    reason: 'reserved' | 'released' | 'recorded' = 'reserved',
  ): { readonly append: StreamAppend; readonly stored: (appended: AppendResult) => LedgerEntry } {
    const event: AccountUsageEvent = {
      type: 'AccountUsageChanged',
      data: {
        accountId: write.accountId,
        filterId,
        reason,
        change,
        // Never below zero: a ledger can only count high (see settle), and must not wrap around.
        filters: Math.max(0, at.totals.filters + change.filters),
        keywordCharacters: Math.max(0, at.totals.keywordCharacters + change.keywordCharacters),
        changedAt: new Date().toISOString(),
      },
    };
    const metadata = { accountId: write.accountId, requestId: write.requestId, commitIndex: 0, commitSize: 1, schemaVersion: 1 };
    const stream = usageStream(write.accountId);
    return {
      // The first change creates the ledger; another writer's first change meanwhile makes this one conflict.
      append: { streamName: stream, events: [{ ...event, metadata }], expected: at.revision ?? 'no_stream' },
      stored: (appended) => {
        const entry = { revision: appended.nextRevision, totals: { filters: event.data.filters, keywordCharacters: event.data.keywordCharacters } };
        this.states.remember(stream, entry.revision, entry.totals);
        return entry;
      },
    };
  }

  /**
   * A change that only lowers the totals and must land whatever else is appended meanwhile: re-read and
   * re-applied on each conflict. One that still loses every try is owed, and lands with this process's
   * next settle for the account (the user's next delete, say), so a starved shrink cannot lock an account
   * out for good; only a failure that may have stored it, or the process's end, leaves the ledger high.
   */
  async settle(write: LedgerWrite, filterId: string, change: UsageTotals, reason: 'released' | 'recorded'): Promise<void> {
    const key = write.accountId;
    await this.turns.run(key, async () => {
      const total = plus(this.owed.get(key) ?? { filters: 0, keywordCharacters: 0 }, change);
      try {
        await asyncRetry(
          async () => {
            const at = await this.read(write);
            // Never so: a release follows its reservation, and a shrink is recorded only on a ledger that
            // existed before its append (account-usage-check.ts). A count now would include it already.
            if (at.revision === null) return;
            await this.change(write, at, filterId, total, reason);
          },
          { backOff: LOST_RACE_BACK_OFF, shouldRetryError: (error, { retries }) => isConflict(error) && retries + 1 < SETTLE_ATTEMPTS },
        );
        this.owed.delete(key);
      } catch (error) {
        // A conflict stored nothing, so carrying it on cannot count it twice; any other failure may have.
        if (isConflict(error)) this.owed.set(key, total);
        else this.owed.delete(key);
        throw error;
      }
    });
  }

  /**
   * The ledger's last event: after a cached revision, the few events since; else the last one alone
   * where the store can read it so (both adapters can), so that a ledger's length never costs a read.
   */
  private async lastEvent(stream: string, after: bigint | undefined): Promise<RecordedEvent | undefined> {
    if (after === undefined && this.events.readLastEvent) return (await this.events.readLastEvent(stream)) ?? undefined;
    return (await this.events.readStream(stream, after === undefined ? {} : { after })).at(-1);
  }

  /** Once per account: its filters folded from their streams (found through the store's account index where it has one). */
  private async countFromLog(accountId: string): Promise<UsageTotals> {
    const filters = new Map<string, FilterState>();
    for await (const recorded of eventHistory(this.events, { accountId })) {
      if (filterIdOfStream(recorded.streamName) === null) continue;
      const event = readFilterEvent(recorded);
      if (event !== null) filters.set(recorded.streamName, evolve(filters.get(recorded.streamName) ?? initialState(), event));
    }
    let totals: UsageTotals = { filters: 0, keywordCharacters: 0 };
    for (const state of filters.values()) {
      const usage = filterUsage(state);
      totals = { filters: totals.filters + usage.filters, keywordCharacters: totals.keywordCharacters + usage.keywordCharacters };
    }
    return totals;
  }
}
