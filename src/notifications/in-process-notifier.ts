import { EventEmitter } from 'node:events';
import { FILTERS_CHANGED, timelineSubject, type Notifier } from './notifier.ts';

export type TimelineListener = (subject: string, payload: string) => void;

/** The embedded default: an in-process bus with NATS's subject names, for code running in this process. */
export class InProcessNotifier implements Notifier {
  private readonly bus = new EventEmitter();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  async filtersChanged(accountId: string): Promise<void> {
    this.bus.emit('message', timelineSubject(accountId), FILTERS_CHANGED);
  }

  subscribe(listener: TimelineListener): () => void {
    this.bus.on('message', listener);
    return () => this.bus.off('message', listener);
  }

  async close(): Promise<void> {
    this.bus.removeAllListeners();
  }
}
