import { EventEmitter } from 'node:events';
import { FILTERS_CHANGED, timelineSubject, type Notifier, type NotifierState } from '../../src/notifications/notifier.ts';

export type TimelineListener = (subject: string, payload: string) => void;

/** A Notifier for tests: publishes on an in-process bus with NATS's subject names, which tests subscribe to. */
export class InProcessBus implements Notifier {
  private readonly bus = new EventEmitter();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  async filtersChanged(accountId: string): Promise<void> {
    this.bus.emit('message', timelineSubject(accountId), FILTERS_CHANGED);
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
