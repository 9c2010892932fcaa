import type { Worker } from 'node:worker_threads';
import { startThreadBeside } from '../../shared/start-thread.ts';
import { WeightedTurns } from '../../shared/weighted-turns.ts';
import type { ParsedMail } from './parsed-message.ts';
import { READING_LIMITS } from './reading-limits.ts';

/** A message's parse: what the reader shows, or why it cannot show it (the message's fault, not the server's). */
export type ParseOutcome = { readonly parsed: ParsedMail } | { readonly unreadable: string };

/** What bounds the threads and the sources in flight (READING_LIMITS; a test may set its own). */
export type ThreadLimits = { readonly [K in 'sourceBytes' | 'threadHeapMb' | 'parseMs' | 'parseThreads' | 'bytesInFlight']: number };

type Reply = { readonly parsed: ParsedMail } | { readonly failed: string };

const MIN_WEIGHT = 64 * 1024;
/** A thread that parsed a large message ends after it, so its grown heap is given back. */
const RECYCLE_ABOVE_BYTES = 1024 * 1024;

/**
 * Parses messages off the main thread, so no message stalls the event loop: each parse runs in a worker
 * thread with a capped heap and a time limit, threads are few, and sources being fetched or parsed at
 * once are bounded in bytes (the fetch waits its turn before it holds any), so memory stays bounded
 * whatever arrives at once.
 * A thread that runs out of memory or time is ended, and the message is unreadable; idle threads are
 * kept for the next message and do not keep the process alive.
 */
export class MessageParser {
  private readonly idle: Worker[] = [];
  /** Sources fetched or being parsed, by their size. */
  private readonly bytes: WeightedTurns;
  /** Parses running at once: one thread each. */
  private readonly threads: WeightedTurns;

  constructor(private readonly limits: ThreadLimits = READING_LIMITS) {
    this.bytes = new WeightedTurns(limits.bytesInFlight);
    this.threads = new WeightedTurns(limits.parseThreads);
  }

  /**
   * Fetches (`fetch`, once `size` bytes fit the bound) and parses one message. The fetch's own failure
   * rejects (the server's problem); anything the parse does resolves.
   */
  parse(size: number, fetch: () => Promise<Buffer>): Promise<ParseOutcome> {
    const weight = Math.min(Math.max(size, MIN_WEIGHT), this.limits.sourceBytes);
    return this.bytes.run(weight, async () => {
      const raw = await fetch();
      return this.threads.run(1, () => this.inThread(raw));
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }

  private inThread(raw: Buffer): Promise<ParseOutcome> {
    const worker = this.idle.pop() ?? this.startThread();
    worker.ref();
    return new Promise<ParseOutcome>((resolve) => {
      const done = (outcome: ParseOutcome, keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (keep) {
          worker.unref();
          this.idle.push(worker);
        } else void worker.terminate();
        resolve(outcome);
      };
      const onMessage = (reply: Reply) => done('parsed' in reply ? { parsed: reply.parsed } : { unreadable: reply.failed }, raw.length <= RECYCLE_ABOVE_BYTES);
      const onError = (error: Error) => done({ unreadable: (error as { code?: string }).code ?? error.message }, false);
      const onExit = (code: number) => done({ unreadable: `the parser thread ended (${code})` }, false);
      const timer = setTimeout(() => done({ unreadable: `parsing took over ${this.limits.parseMs} ms` }, false), this.limits.parseMs);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      // A source of its own is handed over without a copy; a slice of a shared pool is copied.
      const own = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength && raw.buffer instanceof ArrayBuffer;
      worker.postMessage(raw, own ? [raw.buffer] : []);
    });
  }

  private startThread(): Worker {
    const worker = startThreadBeside(import.meta.url, 'parse-message-thread', null, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.threadHeapMb, maxYoungGenerationSizeMb: 32 },
    });
    // A job's own listeners report what happens during it; these keep an idle thread's end from crashing us.
    worker.on('error', () => {});
    worker.on('exit', () => {
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return worker;
  }
}
