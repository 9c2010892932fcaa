import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chainHash, eventHash, GENESIS } from '../../src/events/event-chain.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { copyOfLog, writeLog } from '../support/sqlite-log-tamper.ts';
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

  it('are filled by the migration exactly as the appends wrote them', async () => {
    const dir = scratchDir();
    await writeLog(dir);
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
    } finally {
      db.close();
    }
  });
});
