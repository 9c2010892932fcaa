/**
 * Child process of http-api-bench.ts: the baseline of a durable write. Bare Koa and better-sqlite3, WAL
 * and `synchronous=FULL` as the service's event store, appending what the service appends for the same
 * request (POST: FilterCreated and KeywordsUpdated; PUT: KeywordsUpdated) to an events table of the same
 * columns, committed in groups (every append of one event-loop turn in one transaction, one fsync) and
 * answered only once committed. No authentication, validation, state, projection or read model: the least
 * a durable write can cost here. Answers its address over IPC; answers 'cpu' as the other servers do.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';

const dir = mkdtempSync(join(tmpdir(), 'cf-bench-durable-'));
const db = new Database(join(dir, 'events.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE TABLE events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
  revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL, UNIQUE (stream, revision))`);
const insert = db.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
const revisions = new Map<string, number>();

interface Pending {
  readonly stream: string;
  readonly events: readonly { type: string; data: unknown }[];
  readonly done: () => void;
}
let pending: Pending[] = [];
const commitAll = db.transaction((group: readonly Pending[]) => {
  const now = new Date().toISOString();
  for (const { stream, events } of group) {
    for (const { type, data } of events) {
      const revision = (revisions.get(stream) ?? -1) + 1;
      revisions.set(stream, revision);
      insert.run(randomUUID(), stream, revision, type, JSON.stringify(data), '{}', now);
    }
  }
});

/** Queues the events; one transaction per event-loop turn takes every append queued during it. */
function append(stream: string, events: Pending['events']): Promise<void> {
  return new Promise((resolve) => {
    if (pending.length === 0)
      setImmediate(() => {
        const group = pending;
        pending = [];
        commitAll(group);
        for (const p of group) p.done();
      });
    pending.push({ stream, events, done: resolve });
  });
}

process.on('message', (message: unknown) => {
  if (message !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send!({ cpuMicros: user + system });
});

const app = new Koa();
app.use(async (ctx) => {
  let raw = '';
  for await (const chunk of ctx.req) raw += chunk;
  // A DELETE has no body (wrk-post-delete.lua).
  const body = (raw === '' ? {} : JSON.parse(raw)) as { keywords_attributes?: { keyword: string }[] };
  const now = new Date().toISOString();
  const added = (body.keywords_attributes ?? []).map((k) => ({ id: randomUUID(), keyword: k.keyword, wholeWord: true }));
  const change = { removed: [], changed: [], added, replacesAll: false, updatedAt: now };
  if (ctx.method === 'POST') {
    const filterId = randomUUID();
    const created = { filterId, accountId: ctx.get('authorization'), ...body, createdAt: now };
    await append(`filter-${filterId}`, [
      { type: 'FilterCreated', data: created },
      { type: 'KeywordsUpdated', data: { filterId, ...change } },
    ]);
    ctx.body = { id: filterId, ...body };
    return;
  }
  const filterId = ctx.path.split('/').pop()!;
  if (ctx.method === 'DELETE') {
    await append(`filter-${filterId}`, [{ type: 'FilterDeleted', data: { filterId, deletedAt: now } }]);
    ctx.body = {};
    return;
  }
  await append(`filter-${filterId}`, [{ type: 'KeywordsUpdated', data: { filterId, ...change } }]);
  ctx.body = { id: filterId, ...body };
});
const server = app.listen(0, '127.0.0.1', () => process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.once('disconnect', () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
