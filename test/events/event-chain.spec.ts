import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chainHash, eventHash, GENESIS } from '../../src/events/event-chain.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { verifySqliteLog } from '../../src/events/sqlite-verify.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { randomUUID } from 'node:crypto';
import { asVersionThreeLog, copyOfLog, setColumn, writeLog } from '../support/sqlite-log-tamper.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const content = { stream: 'filter-a', revision: 0n, type: 'FilterCreated', data: '{"n":1}', metadata: '{}' };
const hashes = (dir: string) => {
  const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT position, prev_hash, event_hash, chain_hash FROM events ORDER BY position').all();
  } finally {
    db.close();
  }
};

describe('Event chain hashes', () => {
  it('tell apart field lists whose texts only join the same way', () => {
    // The same text once data and metadata are joined: only the lengths tell where one ends.
    const moved = { ...content, data: '{"n":1}{', metadata: '}' };
    assert.notEqual(eventHash(content, GENESIS), eventHash(moved, GENESIS));
    assert.notEqual(chainHash('1', 23n, 'x'), chainHash('12', 3n, 'x'));
  });

  it('hash the text as given: one changed byte, another hash', () => {
    assert.notEqual(eventHash(content, GENESIS), eventHash({ ...content, data: '{"n":2}' }, GENESIS));
    assert.match(eventHash(content, GENESIS), /^[0-9a-f]{64}$/);
  });
});

describe('events.sqlite chain columns', function () {
  this.timeout(60_000);

  it('are filled by the migration exactly as the appends of that build wrote them (version 1 hashes)', async () => {
    const dir = scratchDir();
    await writeLog(dir);
    asVersionThreeLog(dir);
    const old = copyOfLog(dir);
    const db = new Database(join(old, 'events.sqlite'));
    db.exec(
      'DROP TRIGGER events_need_chain; ALTER TABLE events DROP COLUMN prev_hash; ALTER TABLE events DROP COLUMN event_hash; ALTER TABLE events DROP COLUMN chain_hash; PRAGMA user_version = 2;',
    );
    db.close();
    await SqliteEventStore.inDataDir(old).close();
    assert.deepEqual(hashes(old), hashes(dir));
  });

  it('refuse a row without its hashes, as an older build would insert it', async () => {
    const dir = scratchDir();
    await writeLog(dir);
    const db = new Database(join(dir, 'events.sqlite'));
    try {
      const insert = db.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
      assert.throws(() => insert.run('id-1', 'filter-x', 0, 'FilterCreated', '{}', '{}', new Date().toISOString()), /older than the file/);
      // A build of schema version 3 writes all three hashes, of version 1, and no hash_version.
      const hashed = db.prepare(
        'INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at, prev_hash, event_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      assert.throws(
        () => hashed.run('id-2', 'filter-x', 0, 'FilterCreated', '{}', '{}', new Date().toISOString(), GENESIS, GENESIS, GENESIS),
        /hashes the event id and recorded time: this build is older than the file/,
      );
    } finally {
      db.close();
    }
  });

  it('upgrade a log of version 1 hashes without changing its head; appends after are version 2, times covered from there on only', async () => {
    const dir = scratchDir();
    await writeLog(dir);
    asVersionThreeLog(dir);
    const before = hashes(dir);
    const head = (await verifySqliteLog(join(dir, 'events.sqlite'), null)) as { ok: true; head: { position: bigint; hash: string } };
    const store = SqliteEventStore.inDataDir(dir);
    await store.appendToStream(filterStream(randomUUID()), [{ type: 'FilterCreated', data: { n: 1 }, metadata: {} }], 'no_stream');
    await store.close();
    assert.deepEqual(hashes(dir).slice(0, 10), before, 'the stored hashes are kept');
    const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
    const versions = db.prepare('SELECT hash_version AS v FROM events ORDER BY position').all() as { v: number | null }[];
    db.close();
    assert.deepEqual(
      versions.map((row) => row.v),
      [...Array<null>(10).fill(null), 2],
    );
    const after = await verifySqliteLog(join(dir, 'events.sqlite'), head.head);
    assert.equal(
      after.ok,
      true,
      JSON.stringify(after, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    );
    // The limit docs/auditing.md states: an event hashed before the upgrade does not cover its time.
    setColumn(dir, 3n, 'recorded_at', '2000-01-01T00:00:00.000Z');
    assert.equal((await verifySqliteLog(join(dir, 'events.sqlite'), head.head)).ok, true);
    setColumn(dir, 11n, 'recorded_at', '2000-01-01T00:00:00.000Z');
    assert.equal((await verifySqliteLog(join(dir, 'events.sqlite'), head.head)).ok, false);
  });
});
