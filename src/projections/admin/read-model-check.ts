import { setTimeout as pause } from 'node:timers/promises';
import type { EventStore } from '../../events/event-store.ts';
import { fillGeneration } from '../runtime/fill-generation.ts';
import { FILTERS_PROJECTION } from '../runtime/filter-projector.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import type { ReadStore } from '../stores/read-store.ts';
import { accountDrift, type AccountModels, type Drift } from './read-model-diff.ts';

const ACCOUNTS_PAGE = 500;
/** Looks again at an account whose filters the live projector keeps moving, at most this often. */
const ATTEMPTS = 5;
/** How long to wait for a live checkpoint that lags the views it stored (MongoDB writes the checkpoint last). */
const CHECKPOINT_WAIT_MS = 1000;

export interface ReadModelCheckOptions {
  /** Told each difference as it is found, and awaited: a slow reader holds the check back. */
  readonly onDrift: (drift: Drift) => void | Promise<void>;
}

export interface ReadModelCheckReport {
  readonly accounts: number;
  readonly filters: number;
  readonly differences: number;
  /** The log position the replay reached: the live checkpoint, as it last stood. Null: nothing was projected. */
  readonly position: bigint | null;
  readonly events: number;
}

/** Whatever lists the accounts it holds in ascending string order, a page at a time (a generation, Mastodon's tables). */
export type AccountLister = Pick<ReadStore, 'accountsAfter'>;

/** The accounts of one generation, a page at a time, in ascending order. */
async function* accountsOf(store: AccountLister): AsyncGenerator<string> {
  for (let after: string | null = null; ;) {
    const page = await store.accountsAfter(after, ACCOUNTS_PAGE);
    if (page.length === 0) return;
    yield* page;
    after = page.at(-1)!;
  }
}

/** Every account of either generation once, in ascending order: both lists are sorted, so they merge. */
export async function* everyAccount(live: AccountLister, log: AccountLister): AsyncGenerator<string> {
  const [a, b] = [accountsOf(live), accountsOf(log)];
  const value = (r: IteratorResult<string>): string | null => (r.done ? null : r.value);
  const [first, second] = await Promise.all([a.next(), b.next()]);
  let [x, y] = [value(first), value(second)];
  while (x !== null || y !== null) {
    const next: string = x === null ? y! : y === null || x <= y ? x : y;
    yield next;
    if (x === next) x = value(await a.next());
    if (y === next) y = value(await b.next());
  }
}

const modelsOf = async (store: ReadStore, account: string): Promise<AccountModels> => {
  const [views, v1] = await Promise.all([store.listFilters(account), store.listV1Filters(account)]);
  return { views, v1 };
};

/**
 * True when the live projector has stored a later state of one of the account's filters than the scratch
 * generation holds (a newer revision, a filter the replay has not reached yet, or a deletion): a
 * difference there may be the log moving on, not drift.
 */
async function liveIsAhead(live: ReadStore, log: ReadStore, liveModels: AccountModels, logModels: AccountModels): Promise<boolean> {
  const logById = new Map(logModels.views.map((view) => [view.id, view]));
  for (const view of liveModels.views) {
    const replayed = logById.get(view.id) ?? (await log.loadFilter(view.id));
    if (!replayed || replayed.revision < view.revision) return true;
  }
  const liveIds = new Set(liveModels.views.map((view) => view.id));
  for (const view of logModels.views) {
    if (liveIds.has(view.id)) continue;
    const stored = await live.loadFilter(view.id);
    if (stored && stored.revision > view.revision) return true;
  }
  return false;
}

/**
 * Replays the log into a scratch generation (never swapped in, dropped at the end) up to the live
 * checkpoint, and compares every account's v1 and v2 read models with it, telling each difference as it
 * is found. Where the live projector has moved on meanwhile, the scratch generation is caught up to the
 * live checkpoint again before the account is judged, so a running service causes no false drift.
 * Memory holds one account at a time (the fill's own view cache aside); the event loop gets a turn
 * between accounts.
 */
export async function checkReadModels(events: EventStore, reads: ManagedReadStore, options: ReadModelCheckOptions): Promise<ReadModelCheckReport> {
  const generation = await reads.createScratchGeneration();
  const scratch = reads.generation(generation);
  let position: bigint | null = null;
  let replayed = 0;
  const catchUp = async (): Promise<boolean> => {
    const live = await reads.checkpoint(FILTERS_PROJECTION);
    if (live === null || (position !== null && live <= position)) return false;
    replayed += await fillGeneration(events, scratch, live);
    position = live;
    return true;
  };
  const checkpointMoves = async (): Promise<boolean> => {
    for (const deadline = Date.now() + CHECKPOINT_WAIT_MS; Date.now() < deadline; await pause(20)) if (await catchUp()) return true;
    return false;
  };
  try {
    await catchUp();
    const report = { accounts: 0, filters: 0, differences: 0 };
    for await (const account of everyAccount(reads, scratch)) {
      let waited = false;
      for (let attempt = 1; ; attempt += 1) {
        const [live, log] = await Promise.all([modelsOf(reads, account), modelsOf(scratch, account)]);
        const found = accountDrift(account, live, log);
        if (found.length > 0 && attempt < ATTEMPTS && (await liveIsAhead(reads, scratch, live, log))) {
          if (await catchUp()) continue;
          if (!waited) {
            waited = true;
            if (await checkpointMoves()) continue;
          }
        }
        report.accounts += 1;
        report.filters += live.views.length;
        report.differences += found.length;
        for (const drift of found) await options.onDrift(drift);
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { ...report, position, events: replayed };
  } finally {
    await reads.dropGeneration(generation);
  }
}
