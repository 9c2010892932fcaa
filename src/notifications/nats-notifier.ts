import { headers, type JetStreamClient, type NatsConnection, type StreamInfo } from 'nats';
import { silentLogger, type Logger } from '../shared/logger.ts';
import type { NatsLink } from './nats-connection.ts';
import {
  FILTERS_CHANGED,
  MESSAGE_ID_HEADER,
  NotifierUnavailableError,
  POSITION_HEADER,
  timelineSubject,
  type Announcement,
  type HeldAnnouncement,
  type Notifier,
  type NotifierState,
  type PublishOutcome,
} from './notifier.ts';
import { checkTimelineStream, TIMELINE_SUBJECTS, type TimelineStreamSettings } from './timeline-stream.ts';

export { NotifierUnavailableError };

/** `jetstream`: published through the stream; `core`: the server has no JetStream; `unknown`: not connected yet. */
export type NatsDelivery = 'unknown' | 'jetstream' | 'core';

const PUBLISH_TIMEOUT_MS = 5000;
/** nats-server's JSNoMessageFoundErr: the stream holds no message on those subjects. */
const NO_MESSAGE_FOUND = 10037;
/** nats.js's code for a server without JetStream (ErrorCode.JetStreamNotEnabled). */
const JETSTREAM_NOT_ENABLED = '503';

/**
 * Announces on `timeline.<account_id>`. Where the server has JetStream, through a stream that captures
 * `timeline.*` (created when absent, checked and left alone when present), with the commit's message id
 * (a re-publish inside the duplicate window is dropped) and position (`lastHeld` tells the announcer what
 * the stream holds, so it re-publishes nothing the stream has, however late); core
 * subscribers receive the same message. Without JetStream, a core publish confirmed by a flush. Either
 * way `announce` resolves only once the server has the message.
 */
export class NatsNotifier implements Notifier {
  readonly channel = 'nats';
  private readonly encoder = new TextEncoder();
  private delivery: NatsDelivery = 'unknown';
  private preparing: Promise<void> | null = null;
  private js: JetStreamClient | null = null;
  private streamProblem: string | null = null;
  private readonly logger: Logger;
  private toldCore = false;

  constructor(
    private readonly link: NatsLink,
    private readonly stream: TimelineStreamSettings,
    logger: Logger = silentLogger,
  ) {
    this.logger = logger;
    link.onConnected((connection) => {
      this.preparing = this.prepare(connection);
      this.preparing.catch((error: unknown) => this.logger.warn({ err: error }, 'NATS reached, but the stream could not be set up; retrying'));
    });
  }

  async announce(announcement: Announcement): Promise<PublishOutcome> {
    const connection = this.link.connection;
    if (!connection || this.link.state() !== 'connected') throw new NotifierUnavailableError(`NATS is ${this.link.state()}`);
    this.preparing ??= this.prepare(connection);
    await this.preparing;
    const subject = timelineSubject(announcement.accountId);
    const payload = this.encoder.encode(FILTERS_CHANGED);
    const h = headers();
    h.set(MESSAGE_ID_HEADER, announcement.messageId);
    h.set(POSITION_HEADER, announcement.position.toString());
    try {
      if (this.js) {
        const ack = await this.js.publish(subject, payload, { msgID: announcement.messageId, headers: h, timeout: PUBLISH_TIMEOUT_MS });
        return ack.duplicate ? 'duplicate' : 'published';
      }
      connection.publish(subject, payload, { headers: h });
      await connection.flush();
      return 'published';
    } catch (error) {
      // The stream may have been deleted, or JetStream switched on or off: look again before the retry.
      this.preparing = null;
      throw new NotifierUnavailableError(`NATS publish failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * The stream's last message (on any account's subject): the announcer publishes in log order, so it
   * is the furthest announcement the stream holds. Asked of the stream leader, so after a failover it is
   * what the new leader has, including a publish whose acknowledgement was lost.
   */
  async lastHeld(): Promise<HeldAnnouncement | null> {
    const connection = this.link.connection;
    if (!connection || this.link.state() !== 'connected') throw new NotifierUnavailableError(`NATS is ${this.link.state()}`);
    this.preparing ??= this.prepare(connection);
    await this.preparing;
    if (!this.js) return null;
    let message;
    try {
      message = await (await connection.jetstreamManager()).streams.getMessage(this.stream.name, { last_by_subj: TIMELINE_SUBJECTS });
    } catch (error) {
      if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === NO_MESSAGE_FOUND) return null;
      this.preparing = null;
      throw new NotifierUnavailableError(`NATS did not say what the stream holds: ${(error as Error).message}`, { cause: error });
    }
    const position = message.header.get(POSITION_HEADER);
    const messageId = message.header.get(MESSAGE_ID_HEADER);
    // Another publisher's message on timeline.*: it says nothing about ours.
    if (!/^\d+$/.test(position) || messageId === '') return null;
    return { messageId, position: BigInt(position) };
  }

  state(): NotifierState {
    return this.link.state();
  }

  details(): Record<string, unknown> {
    return {
      delivery: this.delivery,
      stream: this.stream.name,
      ...(this.streamProblem ? { streamProblem: this.streamProblem } : {}),
    };
  }

  /** The stream's state, for /health and /metrics; null without JetStream or while NATS is away. */
  async streamInfo(): Promise<StreamInfo | null> {
    const connection = this.link.connection;
    if (this.delivery !== 'jetstream' || !connection || this.link.state() !== 'connected') return null;
    const jsm = await connection.jetstreamManager();
    return jsm.streams.info(this.stream.name);
  }

  get mode(): NatsDelivery {
    return this.delivery;
  }

  async close(): Promise<void> {
    await this.link.close();
  }

  /** On every (re)connect: JetStream or core, and the stream in place. */
  private async prepare(connection: NatsConnection): Promise<void> {
    let jsm;
    try {
      jsm = await connection.jetstreamManager();
    } catch (error) {
      // Anything but "no JetStream here" (a time-out, a connection lost meanwhile) is tried again later.
      if ((error as { code?: unknown }).code !== JETSTREAM_NOT_ENABLED) {
        this.preparing = null;
        throw new NotifierUnavailableError(`NATS did not answer about JetStream: ${(error as Error).message}`, { cause: error });
      }
      this.js = null;
      this.delivery = 'core';
      this.streamProblem = null;
      if (!this.toldCore) {
        this.toldCore = true;
        this.logger.warn({ err: error }, 'NATS has no JetStream: announcing on core NATS only (subscribers that are away miss announcements)');
      }
      return;
    }
    try {
      this.streamProblem = await checkTimelineStream(jsm, this.stream, this.logger);
      this.js = connection.jetstream();
      this.delivery = 'jetstream';
      this.toldCore = false;
    } catch (error) {
      this.preparing = null;
      throw new NotifierUnavailableError(`cannot set up the JetStream stream ${this.stream.name}: ${(error as Error).message}`, { cause: error });
    }
  }
}
