import type { Worker } from 'node:worker_threads';
import { startThreadBeside } from '../shared/start-thread.ts';
import { EventStoreUnavailableError } from './event-store.ts';
import type { WriterReply, WriterRequest } from './sqlite-writer-protocol.ts';

type Body<R> = R extends WriterRequest ? Omit<R, 'id'> : never;

/** The thread runs the same kind of file as this one: JavaScript from dist/, or TypeScript under tsx. */
export function startWriterThread(workerData: unknown): Worker {
  return startThread('sqlite-writer-thread', workerData);
}

/** A worker thread running `./<name>.js` beside this file, or `./<name>.ts` under tsx. */
export function startThread(name: string, workerData: unknown): Worker {
  return startThreadBeside(import.meta.url, name, workerData);
}

/**
 * The main thread's side of the event store's writer thread: requests and their replies, matched by id.
 * A thread that dies (a crash, memory) fails what it had been asked as unavailable, and the next request
 * starts a new one. The thread keeps the process alive only while it has work.
 */
export class SqliteWriter {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { worker: Worker; resolve: (reply: WriterReply) => void; reject: (error: Error) => void }>();

  constructor(
    private readonly path: string,
    private readonly startWorker: (workerData: { path: string }) => Worker = startWriterThread,
  ) {}

  request(body: Body<WriterRequest>): Promise<WriterReply> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<WriterReply>((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      worker.ref();
      worker.postMessage({ ...body, id });
    });
  }

  /** Closes the write connection once the requests already made are answered, then ends the thread. */
  async close(): Promise<void> {
    if (!this.worker) return;
    const worker = this.worker;
    await this.request({ kind: 'close' }).catch(() => {});
    this.worker = null;
    await worker.terminate();
  }

  private start(): Worker {
    const worker = this.startWorker({ path: this.path });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (![...this.waiting.values()].some((w) => w.worker === worker)) worker.unref();
      waiter.resolve(reply);
    });
    worker.on('error', (error) => this.stopped(worker, `the event store's writer thread failed: ${error.message}`));
    worker.on('exit', (code) => this.stopped(worker, `the event store's writer thread exited (code ${code})`));
    return worker;
  }

  private stopped(worker: Worker, why: string): void {
    if (this.worker === worker) this.worker = null;
    for (const [id, waiter] of this.waiting) {
      if (waiter.worker !== worker) continue;
      this.waiting.delete(id);
      waiter.reject(new EventStoreUnavailableError(`event store (SQLite): ${why}`));
    }
  }
}
