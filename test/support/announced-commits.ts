import { setTimeout as delay } from 'node:timers/promises';
import { waitUntil } from './wait-until.ts';
import { AckPolicy, connect, DeliverPolicy } from 'nats';
import type { EventMetadata } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';

/** The stream the service announces on (NATS_STREAM's default). */
export const STREAM = 'CONTENT_FILTERS_TIMELINE';

/** The message id of every commit in the log, read straight from the SQLite file: what must be announced. */
export async function commitsInLog(dir: string): Promise<string[]> {
  const events = SqliteEventStore.inDataDir(dir);
  const ids: string[] = [];
  try {
    for (let after: bigint | null = null; ;) {
      const page = await events.readAll({ after, limit: 1000 });
      if (page.length === 0) return ids;
      after = page.at(-1)!.position;
      for (const event of page) {
        const m = event.metadata as EventMetadata;
        if (event.streamName.startsWith('filter-') && m.commitIndex === m.commitSize - 1) ids.push(`filters_changed-${event.eventId}`);
      }
    }
  } finally {
    await events.close();
  }
}

/** Every message of the stream with the time its leader stored it (ms), in stream order. */
/**
 * JetStream answers 503, or no answer comes in time (TIMEOUT), while a cluster elects its meta or stream
 * leader (a server just healed or restarted, on a loaded machine): the reader asks again until it
 * answers, for a minute at most; any other error is the test's.
 */
async function whenAnswering<T>(ask: () => Promise<T>): Promise<T> {
  let answer: { value: T } | null = null;
  await waitUntil(
    async () => {
      try {
        answer = { value: await ask() };
        return true;
      } catch (error) {
        if (['503', 'TIMEOUT'].includes(String((error as { code?: unknown }).code))) return false;
        throw error;
      }
    },
    'JetStream answering (503 or TIMEOUT while its leaders are elected)',
    60_000,
  );
  return answer!.value;
}

/**
 * What the stream holds, read from its start. With `expected`, a count short of it is asked again for
 * up to a minute before being trusted: just after a partition heals, the count can come from a server
 * that has not caught up (seen: 1 message for 3,505 commits that were all there). A stream that never
 * reaches it is read as it is, and the caller's comparison fails.
 */
export async function storedMessages(servers: string[], expected = 0): Promise<{ messageId: string; storedAt: number }[]> {
  const connection = await connect({ servers });
  try {
    const jsm = await whenAnswering(() => connection.jetstreamManager());
    const count = async () => (await whenAnswering(() => jsm.streams.info(STREAM))).state.messages;
    let total = await count();
    if (total < expected) console.log(`      the stream first says ${total} messages of ${expected}: asking again`);
    for (const until = Date.now() + 60_000; total < expected && Date.now() < until; total = await count()) await delay(100);
    const durable = `reader-${Math.random().toString(36).slice(2)}`;
    await whenAnswering(() => jsm.consumers.add(STREAM, { durable_name: durable, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All }));
    const consumer = await connection.jetstream().consumers.get(STREAM, durable);
    const read: { messageId: string; storedAt: number }[] = [];
    const messages = await consumer.consume();
    for await (const message of messages) {
      read.push({ messageId: message.headers?.get('Nats-Msg-Id') ?? '', storedAt: message.info.timestampNanos / 1e6 });
      if (read.length >= total) break;
    }
    return read;
  } finally {
    await connection.close();
  }
}
