import { AckPolicy, connect, DeliverPolicy, type ConsumerConfig } from 'nats';

export interface TimelineChange {
  readonly accountId: string;
  /** The same for every copy of one change (Nats-Msg-Id). */
  readonly messageId: string;
  /** The log position of the change's commit: grows with each change of an account. */
  readonly position: bigint;
  /** The stream's sequence: where a new consumer can start from. */
  readonly sequence: number;
}

/** Starts, or resumes under the same durable name, a consumer of the announcements stream. */
export async function subscribeDurably(options: {
  readonly servers: string;
  readonly stream?: string;
  readonly durable: string;
  readonly from?: { readonly sequence: number } | { readonly since: Date };
  readonly onChange: (change: TimelineChange) => Promise<void> | void;
}) {
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
      message.ack(); // only once handled: a crash before this gets it delivered again
    }
  })();
  const stop = async () => {
    await messages.close();
    await done;
    await connection.close();
  };
  return { connection, stop };
}
