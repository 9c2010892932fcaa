import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { EventStore, NewEvent } from '../../src/events/event-store.ts';
import { eventHistory } from '../../src/events/event-history.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { ACCOUNT_EVENTS_SQL } from '../../src/events/sqlite-account-index.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { eventsSchema } from '../../src/events/sqlite-events-schema.ts';
import { latestVersion } from '../../src/shared/schema-migrations.ts';
import { filtersAsOf } from '../../src/projections/admin/filters-as-of.ts';
import { newId } from '../../src/shared/ids.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const now = '2026-11-23T10:00:00.000Z';
const created = (filterId: string, accountId: string, title = 'spoilers'): NewEvent => ({
  type: 'FilterCreated',
  data: { filterId, accountId, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
  metadata: { accountId, commitIndex: 0, commitSize: 1, schemaVersion: 1 },
});
const renamed = (filterId: string, accountId: string, title: string): NewEvent => ({
  type: 'FilterUpdated',
  data: { filterId, title, context: ['home'], action: 'warn', expiresAt: null, updatedAt: now },
  metadata: { accountId, commitIndex: 0, commitSize: 1, schemaVersion: 1 },
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The real store, except that reading the global log fails: a query that needs it is a full scan. */
function refusingFullScans(store: SqliteEventStore): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readAll') return () => Promise.reject(new Error('full scan of the log refused'));
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('SQLite event store: streams indexed by account', () => {
  it('answers an account and its filters as of a position without reading other accounts’ events', async () => {
    const dir = scratchDir();
    const store = SqliteEventStore.inDataDir(dir);
    const [alice, bob] = [newId(), newId()];
    const [first, second, bobs] = [newId(), newId(), newId()];
    try {
      await store.appendToStream(filterStream(first), [created(first, alice)], 'no_stream');
      await store.appendToStream(filterStream(bobs), [created(bobs, bob)], 'no_stream');
      const renamedAt = (await store.appendToStream(filterStream(first), [renamed(first, alice, 'renamed')], 0n)).position;
      await store.appendToStream(filterStream(second), [created(second, alice, 'second')], 'no_stream');
      await store.appendToStream(filterStream(bobs), [renamed(bobs, bob, 'bob again')], 0n);
      // Bob's rows become unreadable: a query that parsed them would fail.
      const raw = new Database(join(dir, 'events.sqlite'));
      raw.prepare("UPDATE events SET data = 'not json', metadata = 'not json' WHERE stream = ?").run(filterStream(bobs));
      raw.close();

      const mine = await store.readAccountEvents(alice);
      assert.deepEqual(
        mine.map((e) => [e.streamName, e.type]),
        [
          [filterStream(first), 'FilterCreated'],
          [filterStream(first), 'FilterUpdated'],
          [filterStream(second), 'FilterCreated'],
        ],
      );
      assert.deepEqual(await store.readAccountEvents(newId()), []);

      const strict = refusingFullScans(store);
      const history = await collect(eventHistory(strict, { accountId: alice }));
      assert.deepEqual(
        history.map((e) => e.position),
        mine.map((e) => e.position),
      );
      const asOf = await filtersAsOf(strict, alice, { position: renamedAt });
      assert.deepEqual(
        asOf.map((v) => [v.id, v.title]),
        [[first, 'renamed']],
      );
    } finally {
      await store.close();
    }
  });

  it('plans the query through the indexes only, never a scan of the log', async () => {
    const dir = scratchDir();
    const store = SqliteEventStore.inDataDir(dir);
    for (let i = 0; i < 20; i += 1) {
      const filterId = newId();
      await store.appendToStream(filterStream(filterId), [created(filterId, String(1000 + (i % 4)))], 'no_stream');
    }
    await store.close();
    const db = new Database(join(dir, 'events.sqlite'));
    try {
      db.exec('ANALYZE');
      const plan = db
        .prepare<[string, string], { detail: string }>(`EXPLAIN QUERY PLAN ${ACCOUNT_EVENTS_SQL}`)
        .all('1001', 'account-1001')
        .map((row) => row.detail);
      assert.ok(
        plan.every((step) => !/^SCAN /.test(step)),
        plan.join('; '),
      );
      assert.ok(
        plan.some((step) => /^SEARCH stream_owners/.test(step)),
        plan.join('; '),
      );
    } finally {
      db.close();
    }
  });

  it('indexes the events of a file written by the previous schema when it is opened, and appends after that', async () => {
    const dir = scratchDir();
    const path = join(dir, 'events.sqlite');
    const [alice, bob, filterId, bobs] = [newId(), newId(), newId(), newId()];
    // Version 1 of events.sqlite, copied here on purpose: later steps must not change what "old" means.
    const old = new Database(path);
    old.exec(`CREATE TABLE events (
        position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
        revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
        recorded_at TEXT NOT NULL, UNIQUE (stream, revision));
      PRAGMA user_version = 1;`);
    const insert = old.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const [id, owner, event, revision] of [
      [filterId, alice, created(filterId, alice), 0],
      [bobs, bob, created(bobs, bob), 0],
      [filterId, alice, renamed(filterId, alice, 'old rename'), 1],
    ] as const) {
      insert.run(newId(), filterStream(id), revision, event.type, JSON.stringify(event.data), JSON.stringify({ ...(event.metadata as object), owner }), now);
    }
    old.close();

    const store = SqliteEventStore.inDataDir(dir);
    try {
      assert.deepEqual(
        (await store.readAccountEvents(alice)).map((e) => [e.position, e.type]),
        [
          [1n, 'FilterCreated'],
          [3n, 'FilterUpdated'],
        ],
      );
      const later = newId();
      await store.appendToStream(filterStream(later), [created(later, alice)], 'no_stream');
      await store.appendToStream(filterStream(filterId), [renamed(filterId, alice, 'new rename')], 1n);
      assert.deepEqual(
        (await store.readAccountEvents(alice)).map((e) => [e.streamName, e.revision]),
        [
          [filterStream(filterId), 0n],
          [filterStream(filterId), 1n],
          [filterStream(later), 0n],
          [filterStream(filterId), 2n],
        ],
      );
      assert.deepEqual(
        (await store.readAccountEvents(bob)).map((e) => e.position),
        [2n],
      );
    } finally {
      await store.close();
    }
    const upgraded = new Database(path, { readonly: true });
    assert.equal(upgraded.pragma('user_version', { simple: true }), latestVersion(eventsSchema));
    upgraded.close();
  });
});
