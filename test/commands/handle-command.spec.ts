import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { ConflictError } from '../../src/commands/errors.ts';
import { retryDelayMs } from '../../src/commands/handle-command.ts';
import { ConcurrencyError, type EventStore } from '../../src/events/event-store.ts';
import { filterEventReader, FILTER_EVENT_VERSIONS, FILTER_UPCASTERS } from '../../src/events/filter-event-versions.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { addKeyword, createFilter, NOW, OWNER, rename, runCommand } from './support/filter-commands.ts';

/** Wraps a real store; `beforeAppend` runs before each append is passed on. */
function storeWith(inner: EventStore, beforeAppend: (attempt: number) => Promise<void>) {
  const calls = { reads: 0, appends: 0 };
  const store: EventStore = {
    readStream: (name, options) => ((calls.reads += 1), inner.readStream(name, options)),
    readAll: (options) => inner.readAll(options),
    onAppend: (listener) => inner.onAppend(listener),
    close: () => inner.close(),
    async appendToStream(name, events, expected) {
      calls.appends += 1;
      await beforeAppend(calls.appends);
      return inner.appendToStream(name, events, expected);
    },
  };
  return { store, calls };
}

/** This process's environment without its own IPC channel settings, which a forked child must not inherit (under Stryker this process is itself a forked worker). */
const inheritedEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NODE_CHANNEL_')));

describe('Command handler', () => {
  let events: SqliteEventStore;
  let filterId: string;

  beforeEach(async () => {
    events = SqliteEventStore.inDataDir(scratchDir());
    filterId = newId();
    await runCommand(events, createFilter(filterId));
  });
  afterEach(() => events.close());

  const keywordsOf = async () => {
    const outcome = await runCommand(events, rename(filterId, 'read back'));
    return outcome.state.phase === 'active' ? outcome.state.keywords.map((k) => k.keyword) : [];
  };

  describe('when another writer wins the race', () => {
    for (const conflicts of [1, 5]) {
      it(`re-reads and decides again after ${conflicts} lost race(s), keeping every write`, async () => {
        // Before each of the first appends, a competing writer adds its keyword: the real store then refuses ours.
        const { store, calls } = storeWith(events, async (attempt) => {
          if (attempt <= conflicts) await runCommand(events, addKeyword(filterId, newId(), `other${attempt}`));
        });
        const outcome = await runCommand(store, addKeyword(filterId, newId(), 'mine'));
        assert.equal(calls.appends, conflicts + 1);
        assert.equal(calls.reads, conflicts + 1);
        const expected = [...Array.from({ length: conflicts }, (_, i) => `other${i + 1}`), 'mine'];
        assert.deepEqual(outcome.state.phase === 'active' && outcome.state.keywords.map((k) => k.keyword), expected);
        assert.deepEqual(await keywordsOf(), expected);
      });
    }

    it('gives up with a ConflictError after 5 retries, appending nothing of its own', async () => {
      const { store, calls } = storeWith(events, async () => {
        throw new ConcurrencyError(filterStream(filterId), 0n, 1n);
      });
      await assert.rejects(runCommand(store, addKeyword(filterId, newId(), 'mine')), (error) => {
        assert.ok(error instanceof ConflictError);
        assert.equal(String(error), 'ConflictError: The filter was changed by another request at the same time; try again');
        return true;
      });
      assert.equal(calls.appends, 6);
      assert.deepEqual(await keywordsOf(), []);
    });

    it('waits 5 ms before the first retry, doubling each time, plus up to 10 ms of jitter', () => {
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, () => 0)),
        [5, 10, 20, 40, 80],
      );
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, () => 0.5)),
        [10, 15, 25, 45, 85],
      );
    });

    it('passes on any other append failure at once', async () => {
      const { store, calls } = storeWith(events, async () => {
        throw new Error('disk full');
      });
      await assert.rejects(runCommand(store, addKeyword(filterId, newId(), 'mine')), /disk full/);
      assert.equal(calls.appends, 1);
    });
  });

  it('appends nothing and reports no position for a command that changes nothing', async () => {
    const { store, calls } = storeWith(events, async () => {});
    const outcome = await runCommand(store, rename(filterId, 't'));
    assert.deepEqual([outcome.events, outcome.position, calls.appends], [[], null, 0]);
    assert.equal(outcome.state.phase === 'active' && outcome.state.settings.title, 't');
  });

  it('retries a race lost to another process on the same data directory', async function () {
    this.timeout(60_000);
    const dataDir = scratchDir();
    const shared = SqliteEventStore.inDataDir(dataDir);
    await runCommand(shared, createFilter(filterId));
    await shared.close();
    const writer = (keyword: string, gated: boolean) => {
      const child = fork(new URL('./support/gated-writer.ts', import.meta.url).pathname, {
        execArgv: ['--import', 'tsx'],
        env: { ...inheritedEnv(), DATA_DIR: dataDir, FILTER_ID: filterId, KEYWORD_ID: newId(), KEYWORD: keyword, GATED: gated ? '1' : '0' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const messages: Record<string, unknown>[] = [];
      child.on('message', (m) => messages.push(m as Record<string, unknown>));
      // Taken at once: a writer that is done may exit before anyone asks.
      const exited = once(child, 'exit');
      const next = async (event: string) => {
        for (;;) {
          const seen = messages.find((m) => m.event === event || m.event === 'failed');
          if (seen) return seen;
          await Promise.race([once(child, 'message'), exited.then(() => Promise.reject(new Error(`writer ${keyword} exited early`)))]);
        }
      };
      return { child, next, exited };
    };
    // A reads the stream and waits at its append; B writes meanwhile; then A appends on a stale revision.
    const a = writer('first-read', true);
    assert.equal((await a.next('before-append')).event, 'before-append');
    const b = writer('first-written', false);
    assert.deepEqual(await b.next('done'), { event: 'done', appends: 1, keywords: ['first-written'] });
    a.child.send('go');
    assert.deepEqual(await a.next('done'), { event: 'done', appends: 2, keywords: ['first-written', 'first-read'] });
    await Promise.all([a.exited, b.exited]);
    const check = SqliteEventStore.inDataDir(dataDir);
    try {
      assert.deepEqual(
        (await check.readStream(filterStream(filterId))).map((e) => e.type),
        ['FilterCreated', 'KeywordsUpdated', 'KeywordsUpdated'],
      );
    } finally {
      await check.close();
    }
  });

  describe('reading the stream', () => {
    it('ignores an event type it does not know, and a later command still works', async () => {
      await events.appendToStream(filterStream(filterId), [{ type: 'FilterRenamedInTheFuture', data: { title: 'x' }, metadata: { schemaVersion: 1 } }], 0n);
      await events.appendToStream(filterStream(filterId), [{ type: 'FilterUpdated', data: { title: 'x' }, metadata: { schemaVersion: 9 } }], 1n);
      const outcome = await runCommand(events, addKeyword(filterId, newId(), 'after'));
      assert.equal(outcome.state.phase, 'active');
      assert.equal(outcome.state.phase === 'active' && outcome.state.settings.title, 't');
      assert.deepEqual(await keywordsOf(), ['after']);
    });

    it('reads old versions through the upcasting hook and writes the current version', async () => {
      // Here FilterUpdated is at version 2, whose `context` version 1 called `contexts`.
      const versions = { ...FILTER_EVENT_VERSIONS, FilterUpdated: 2 };
      const read = filterEventReader({ ...FILTER_UPCASTERS, FilterUpdated: { 1: ({ contexts, ...rest }) => ({ ...rest, context: contexts }) } }, versions);
      const old = { filterId, title: 'old', contexts: ['public'], action: 'hide', expiresAt: null, updatedAt: NOW };
      await events.appendToStream(filterStream(filterId), [{ type: 'FilterUpdated', data: old, metadata: { accountId: OWNER } }], 0n);
      const outcome = await runCommand(events, rename(filterId, 'new'), read);
      assert.deepEqual(outcome.state.phase === 'active' && outcome.state.settings, { title: 'new', context: ['public'], action: 'hide', expiresAt: null });
      const stored = (await events.readStream(filterStream(filterId))).at(-1)!;
      assert.equal(stored.type, 'FilterUpdated');
      assert.deepEqual((stored.data as { context: string[] }).context, ['public']);
    });
  });
});
