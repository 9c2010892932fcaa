import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { natsLink } from '../../src/notifications/nats-connection.ts';
import { NatsNotifier } from '../../src/notifications/nats-notifier.ts';
import { silentLogger, type Logger } from '../../src/shared/logger.ts';
import type { TimelineStreamSettings } from '../../src/notifications/timeline-stream.ts';
import { waitUntil } from './wait-until.ts';
import { subscribeDurably, type TimelineChange } from './durable-timeline-subscriber.ts';

export const TEST_STREAM = { name: 'CONTENT_FILTERS_TIMELINE', maxAgeMs: 3600_000, storage: 'file', replicas: 1 } as const;

/** The service's NATS notifier on `url`, as stores.ts makes it. */
export function natsNotifier(url: string | string[], logger: Logger = silentLogger, stream: TimelineStreamSettings = TEST_STREAM): NatsNotifier {
  const servers = Array.isArray(url) ? url.join(',') : url;
  return new NatsNotifier(natsLink(servers, { name: 'content-filters-test', logger, reconnectTimeWaitMs: 100 }), stream, logger);
}

/** Everything in the stream from its first message, read by a fresh durable consumer once `count` arrived. */
export async function streamContents(url: string, count: number): Promise<TimelineChange[]> {
  const changes: TimelineChange[] = [];
  const subscriber = await subscribeDurably({ servers: url, durable: `reader-${Math.random().toString(36).slice(2)}`, onChange: (c) => void changes.push(c) });
  try {
    await waitUntil(() => changes.length >= count, `${count} messages in the stream (have ${changes.length})`);
    // Anything beyond `count` was stored before the consumer started and comes right after.
    const info = await (await subscriber.connection.jetstreamManager()).streams.info(TEST_STREAM.name);
    await waitUntil(() => changes.length >= info.state.messages, `all ${info.state.messages} messages of the stream`);
    return changes;
  } finally {
    await subscriber.stop();
  }
}

/** A core NATS subscriber of `timeline.*` that counts what it hears per account. */
export async function coreListener(url: string): Promise<{ heard: Map<string, number>; connection: NatsConnection }> {
  const connection = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const heard = new Map<string, number>();
  connection.subscribe('timeline.*', {
    callback: (error, message) => {
      if (error) return;
      const accountId = message.subject.slice('timeline.'.length);
      heard.set(accountId, (heard.get(accountId) ?? 0) + 1);
    },
  });
  await connection.flush();
  return { heard, connection };
}

/** Per account, the positions in stream order; and every message id that appears more than once. */
export function byAccount(changes: readonly TimelineChange[]): { positions: Map<string, bigint[]>; duplicates: string[] } {
  const positions = new Map<string, bigint[]>();
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const change of changes) {
    if (seen.has(change.messageId)) duplicates.push(change.messageId);
    seen.add(change.messageId);
    positions.set(change.accountId, [...(positions.get(change.accountId) ?? []), change.position]);
  }
  return { positions, duplicates };
}

export const increasing = (list: readonly bigint[]): boolean => list.every((p, i) => i === 0 || p > list[i - 1]!);

/** nats-server's JSStreamWrongLastSequenceErr: the publish was checked past deduplication and refused. */
const WRONG_LAST_SEQUENCE = 10071;

/**
 * True once JetStream no longer knows `messageId`: a publish of it that expects an impossible last
 * sequence is answered as a duplicate inside the window (deduplication comes first) and refused,
 * storing nothing, after it.
 */
export async function outOfDuplicateWindow(url: string, subject: string, messageId: string): Promise<boolean> {
  const connection = await connect({ servers: url });
  try {
    const ack = await connection.jetstream().publish(subject, new Uint8Array(), { msgID: messageId, expect: { lastSequence: 0 } });
    assert.equal(ack.duplicate, true, 'the probe never stores anything');
    return false;
  } catch (error) {
    if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === WRONG_LAST_SEQUENCE) return true;
    throw error;
  } finally {
    await connection.close();
  }
}
