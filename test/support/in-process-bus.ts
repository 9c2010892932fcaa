import { EventEmitter } from 'node:events';
import {
  FILTERS_CHANGED,
  timelineSubject,
  type Announcement,
  type Notifier,
  type NotifierState,
  type PublishOutcome,
} from '../../src/notifications/notifier.ts';

export type TimelineListener = (subject: string, payload: string, announcement: Announcement) => void;

/** A Notifier for tests: publishes on an in-process bus with NATS's subject names, which tests subscribe to. */
export class InProcessBus implements Notifier {
  readonly channel = 'in-process';
  private readonly bus = new EventEmitter();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  async announce(announcement: Announcement): Promise<PublishOutcome> {
    this.bus.emit('message', timelineSubject(announcement.accountId), FILTERS_CHANGED, announcement);
    return 'published';
  }

  state(): NotifierState {
    return 'in-process';
  }

  subscribe(listener: TimelineListener): () => void {
    this.bus.on('message', listener);
    return () => this.bus.off('message', listener);
  }

  async close(): Promise<void> {
    this.bus.removeAllListeners();
  }
}
