// The README's example of a timeline service that never misses a change: a durable JetStream consumer.
// Kept here, complete, so that a test runs exactly what the documentation shows.
import { AckPolicy, connect, DeliverPolicy, type ConsumerConfig, type NatsConnection } from 'nats';

export interface TimelineChange {
  readonly accountId: string;
  /** Same for every copy of one change (Nats-Msg-Id): a subscriber that keeps the last few can drop copies. */
  readonly messageId: string;
  /** Log position of the commit; grows with each change of an account. */
  readonly position: bigint;
  /** The stream's sequence: where to start a new consumer from after losing this one. */
  readonly sequence: number;
}

/**
 * Starts (or resumes, under the same `durable` name) a consumer of the announcements stream and calls
 * `onChange` for each, in stream order, acknowledging it once `onChange` has finished, so that whatever
 * the service was not there to hear is delivered when it comes back. A new consumer starts at the stream's
 * first message, at a sequence (`{ sequence }`) or at a time (`{ since }`).
 */
export async function subscribeDurably(options: {
  readonly servers: string;
  readonly stream?: string;
  readonly durable: string;
  readonly from?: { readonly sequence: number } | { readonly since: Date };
  readonly onChange: (change: TimelineChange) => Promise<void> | void;
}): Promise<{ connection: NatsConnection; stop: () => Promise<void> }> {
  const stream = options.stream ?? 'CONTENT_FILTERS_TIMELINE';
  const connection = await connect({ servers: options.servers, maxReconnectAttempts: -1 });
  const start: Partial<ConsumerConfig> =
    options.from === undefined
      ? { deliver_policy: DeliverPolicy.All }
      : 'sequence' in options.from
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: options.from.sequence }
        : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: options.from.since.toISOString() };
  const jsm = await connection.jetstreamManager();
  // Adding an existing durable consumer with the same settings changes nothing: it resumes where it stood.
  await jsm.consumers.add(stream, { durable_name: options.durable, ack_policy: AckPolicy.Explicit, filter_subject: 'timeline.*', ...start });
  const consumer = await connection.jetstream().consumers.get(stream, options.durable);
  const messages = await consumer.consume();
  const done = (async () => {
    for await (const message of messages) {
      await options.onChange({
        accountId: message.subject.slice('timeline.'.length),
        messageId: message.headers?.get('Nats-Msg-Id') ?? '',
        position: BigInt(message.headers?.get('Content-Filters-Position') || '0'),
        sequence: message.seq,
      });
      message.ack();
    }
  })();
  return {
    connection,
    stop: async () => {
      await messages.close();
      await done;
      await connection.close();
    },
  };
}
