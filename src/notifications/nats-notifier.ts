import { headers, type JetStreamClient, type NatsConnection, type StoredMsg, type StreamInfo } from 'nats';
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
/** Messages at or below the checkpoint looked at before `heldAfter` stops: more than a gap-fill can lag. */
const GAP_SLACK = 64;

/** Our announcement in a stored message; null for another publisher's message on timeline.*. */
function announcementIn(message: StoredMsg): HeldAnnouncement | null {
  const position = message.header.get(POSITION_HEADER);
  const messageId = message.header.get(MESSAGE_ID_HEADER);
  if (!/^\d+$/.test(position) || messageId === '') return null;
  return { messageId, position: BigInt(position) };
}

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
   * is (but for a gap it filled since) the furthest announcement the stream holds. Asked of the stream
   * leader, so after a failover it is what the new leader has, including a publish whose acknowledgement
   * was lost. Which commits below it are there is `heldAfter`'s answer.
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
    return announcementIn(message);
  }

  /**
   * Walks the stream back from its last message, one sequence at a time (the leader answers each), and
   * collects our announcements past `position`. It goes on a little past the first one at or below
   * `position`: a commit re-published to fill a gap sits after later commits in the stream.
   */
  async heldAfter(position: bigint | null, limit: number): Promise<HeldAnnouncement[]> {
    const connection = this.link.connection;
    if (!connection || this.link.state() !== 'connected') throw new NotifierUnavailableError(`NATS is ${this.link.state()}`);
    this.preparing ??= this.prepare(connection);
    await this.preparing;
    if (!this.js) return [];
    const jsm = await connection.jetstreamManager();
    const held: HeldAnnouncement[] = [];
    let seq = Number.POSITIVE_INFINITY;
    for (let looked = 0, behind = 0; seq > 1 && looked < limit && behind < GAP_SLACK; looked += 1) {
      const query = seq === Number.POSITIVE_INFINITY ? { last_by_subj: TIMELINE_SUBJECTS } : { seq: seq - 1 };
      let message;
      try {
        message = await jsm.streams.getMessage(this.stream.name, query);
      } catch (error) {
        const code = (error as { api_error?: { err_code?: number } }).api_error?.err_code;
        if (code === NO_MESSAGE_FOUND && 'last_by_subj' in query) return held;
        // A sequence deleted or aged out: look at the one before.
        if (code === NO_MESSAGE_FOUND) {
          seq -= 1;
          continue;
        }
        this.preparing = null;
        throw new NotifierUnavailableError(`NATS did not say what the stream holds: ${(error as Error).message}`, { cause: error });
      }
      seq = message.seq;
      const one = announcementIn(message);
      if (!one) continue;
      if (position !== null && one.position <= position) behind += 1;
      else held.push(one);
    }
    return held;
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
