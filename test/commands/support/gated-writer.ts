/**
 * A writer process for the cross-process concurrency test: adds one keyword to a filter with the real
 * command handler and event store. With GATED=1 it stops before its first append and tells the parent,
 * which lets another process write meanwhile and then sends "go".
 */
import { once } from 'node:events';
import type { EventStore } from '../../../src/events/event-store.ts';
import { SqliteEventStore } from '../../../src/events/sqlite-event-store.ts';
import { addKeyword, runCommand } from './filter-commands.ts';

function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}
const [DATA_DIR, FILTER_ID, KEYWORD_ID, KEYWORD] = [setting('DATA_DIR'), setting('FILTER_ID'), setting('KEYWORD_ID'), setting('KEYWORD')];
const GATED = process.env.GATED;
const send = (message: object) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

const store = SqliteEventStore.inDataDir(DATA_DIR);
let appends = 0;
const gated: EventStore = {
  readStream: (name, options) => store.readStream(name, options),
  readAll: (options) => store.readAll(options),
  onAppend: (listener) => store.onAppend(listener),
  close: () => store.close(),
  async appendToStream(name, events, expected) {
    appends += 1;
    if (GATED === '1' && appends === 1) {
      const go = once(process, 'message');
      await send({ event: 'before-append' });
      await go;
    }
    return store.appendToStream(name, events, expected);
  },
};

try {
  const outcome = await runCommand(gated, addKeyword(FILTER_ID, KEYWORD_ID, KEYWORD));
  const state = outcome.state;
  await send({ event: 'done', appends, keywords: state.phase === 'active' ? state.keywords.map((k) => k.keyword) : [] });
} catch (error) {
  await send({ event: 'failed', appends, error: (error as Error).name });
} finally {
  await store.close();
  process.disconnect();
}
