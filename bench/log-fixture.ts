/**
 * A large event log made fast through the event-store API (not HTTP): every commit is a real
 * `appendToStream` with its expected revision. It is written on a tmpfs (/dev/shm, where an fsync costs
 * nothing) and then copied into `dir`, so the benchmarks measure a file on the ordinary disk.
 * Filters belong to `accounts` accounts in turn, so one account's events are spread over the whole log.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteAccountStore } from '../src/accounts/sqlite-account-store.ts';
import type { NewEvent } from '../src/events/event-store.ts';
import { filterStream } from '../src/events/filter-events.ts';
import { SqliteEventStore } from '../src/events/sqlite-event-store.ts';
import { allowUnleasedIds, newId } from '../src/shared/ids.ts';

export interface LogFixture {
  readonly dir: string;
  readonly events: number;
  /** The account the auditor queries ask about, with a read/write token. */
  readonly accountId: string;
  readonly token: string;
  /** How many events belong to that account's filters. */
  readonly accountEvents: number;
  readonly lastPosition: bigint;
  readonly seconds: number;
}

interface Live {
  readonly filterId: string;
  readonly accountId: string;
  revision: bigint;
  statuses: string[];
}

/** Park–Miller: the same log for the same size, run after run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

const settings = (i: number) => ({ title: `filter ${i}`, context: ['home', 'public'], action: 'warn', expiresAt: null });

/** Writes about `events` events (whole commits) into `<dir>/events.sqlite`; accounts.sqlite gets the queried account. */
export async function writeLogFixture(dir: string, events: number, eventsPerAccount = 250): Promise<LogFixture> {
  allowUnleasedIds();
  const started = process.hrtime.bigint();
  const accounts = SqliteAccountStore.inDataDir(dir);
  const account = await accounts.createAccount(`auditor${Date.now()}`);
  const token = await accounts.createToken(account.id, ['read:filters', 'write:filters']);
  await accounts.close();
  const accountCount = Math.max(2, Math.round(events / eventsPerAccount));
  const accountIds = Array.from({ length: accountCount }, (_, i) => (i === 0 ? account.id : String(100_000 + i)));
  const scratch = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cf-log-'));
  const store = SqliteEventStore.inDataDir(scratch);
  const next = random(1234567);
  const live: Live[] = [];
  const now = new Date().toISOString();
  let written = 0;
  let accountEvents = 0;
  let lastPosition = 0n;
  let created = 0;
  const append = async (filter: Live, batch: Omit<NewEvent, 'metadata'>[], expected: bigint | 'no_stream') => {
    const metadata = (commitIndex: number) => ({
      accountId: filter.accountId,
      requestId: `bench-${written}`,
      apiVersion: 'v2',
      tokenId: null,
      commitIndex,
      commitSize: batch.length,
      schemaVersion: 1,
    });
    const result = await store.appendToStream(
      filterStream(filter.filterId),
      batch.map((e, i) => ({ ...e, metadata: metadata(i) })),
      expected,
    );
    filter.revision = result.nextRevision;
    lastPosition = result.position;
    written += batch.length;
    if (filter.accountId === account.id) accountEvents += batch.length;
  };
  while (written < events) {
    // About one filter in five events, so a filter lives through a handful of changes.
    if (live.length < 64 || next() < 0.2) {
      const filter: Live = { filterId: newId(), accountId: accountIds[created % accountCount]!, revision: -1n, statuses: [] };
      const { filterId, accountId } = filter;
      await append(
        filter,
        [
          { type: 'FilterCreated', data: { filterId, accountId, ...settings(created), createdAt: now } },
          { type: 'KeywordsUpdated', data: { filterId, keywords: [{ id: newId(), keyword: `word${created}`, wholeWord: true }], updatedAt: now } },
        ],
        'no_stream',
      );
      created += 1;
      live.push(filter);
      continue;
    }
    const index = Math.floor(next() * live.length);
    const filter = live[index]!;
    const { filterId } = filter;
    const roll = next();
    if (roll < 0.03) {
      await append(filter, [{ type: 'FilterDeleted', data: { filterId, deletedAt: now } }], filter.revision);
      live[index] = live.at(-1)!;
      live.pop();
    } else if (roll < 0.3) {
      await append(filter, [{ type: 'FilterUpdated', data: { filterId, ...settings(written), updatedAt: now } }], filter.revision);
    } else if (roll < 0.6) {
      const keywords = [1, 2, 3].map((k) => ({ id: newId(), keyword: `w${written}-${k}`, wholeWord: k !== 2 }));
      await append(filter, [{ type: 'KeywordsUpdated', data: { filterId, keywords, updatedAt: now } }], filter.revision);
    } else if (roll < 0.85 || filter.statuses.length === 0) {
      const filterStatusId = newId();
      filter.statuses.push(filterStatusId);
      await append(filter, [{ type: 'StatusFiltered', data: { filterId, filterStatusId, statusId: newId(), filteredAt: now } }], filter.revision);
    } else {
      const filterStatusId = filter.statuses.shift()!;
      await append(filter, [{ type: 'StatusUnfiltered', data: { filterId, filterStatusId, statusId: '1', unfilteredAt: now } }], filter.revision);
    }
  }
  await store.close();
  copyFileSync(join(scratch, 'events.sqlite'), join(dir, 'events.sqlite'));
  rmSync(scratch, { recursive: true, force: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { dir, events: written, accountId: account.id, token, accountEvents, lastPosition, seconds };
}

/** Bump when the log the fixture writes changes, so no older cached copy is used. */
const FIXTURE_VERSION = 1;

/**
 * A fresh data directory (outside the repository) holding a log of `events` events. The log is made
 * once per size and kept in the system's temp directory, since making a million events takes minutes;
 * every call gets its own copy, which the build being measured then opens (and upgrades) itself.
 */
export async function logFixture(events: number): Promise<LogFixture> {
  const cache = join(tmpdir(), `content-filters-bench-log-v${FIXTURE_VERSION}-${events}`);
  const meta = join(cache, 'fixture.json');
  if (!existsSync(meta)) {
    const making = `${cache}.${process.pid}`;
    rmSync(making, { recursive: true, force: true });
    mkdirSync(making, { recursive: true });
    process.stderr.write(`making a log of ${events} events through the event-store API (kept in ${cache}) ...\n`);
    const made = await writeLogFixture(making, events);
    writeFileSync(join(making, 'fixture.json'), JSON.stringify({ ...made, lastPosition: made.lastPosition.toString(), dir: undefined }));
    process.stderr.write(`made ${made.events} events in ${made.seconds.toFixed(1)} s\n`);
    rmSync(cache, { recursive: true, force: true });
    renameSync(making, cache);
  }
  const stored = JSON.parse(readFileSync(meta, 'utf8')) as Omit<LogFixture, 'dir' | 'lastPosition'> & { lastPosition: string };
  const dir = benchDir();
  for (const file of ['events.sqlite', 'accounts.sqlite']) copyFileSync(join(cache, file), join(dir, file));
  return { ...stored, dir, lastPosition: BigInt(stored.lastPosition) };
}

/** A fresh directory outside the repository, for one benchmark's data. */
export function benchDir(): string {
  return mkdtempSync(join(tmpdir(), 'cf-bench-'));
}
