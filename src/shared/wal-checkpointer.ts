import type { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite.ts';
import { startThreadBeside } from './start-thread.ts';

/** How often a connection's log is checkpointed, in transactions, sized by the pages a transaction writes. */
export interface CheckpointPace {
  /** Transactions between two checkpoints: a few hundred KB of log. */
  readonly transactionsPerCheckpoint: number;
  /**
   * Transactions not yet covered by a finished checkpoint past which writers wait for the thread (`room()`):
   * a writer can outrun a thread that syncs the disk, and the log must stay a few MB.
   */
  readonly maxBacklog: number;
}

/** A counter's transaction writes a few pages. */
export const COUNTER_CHECKPOINTS: CheckpointPace = { transactionsPerCheckpoint: 32, maxBacklog: 256 };

/**
 * Left to the main connection, only if the thread is gone: pages of log before SQLite checkpoints on the
 * committing thread (16 MB), which bounds the log, at the cost of a stall of the event loop.
 */
const BACKSTOP_PAGES = 4000;

/**
 * Checkpoints a WAL file from a worker thread instead of the event loop. SQLite's automatic checkpoint
 * runs in the connection that commits, copying about 1,000 pages and syncing the file: 10-17 ms (at load
 * 8 on 2 cores) every few hundred transactions of the rate-limit counters, beyond the 10 ms a request's
 * event loop may stand still. The main connection tells `wrote()` after each transaction; every
 * `transactionsPerCheckpoint` of them the thread is asked for a checkpoint, one at a time, and writers
 * await `room()` before they write, so that a thread behind them holds them back instead of the log growing.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private written = 0;
  private asked = false;
  private alive = true;
  /** Transactions no finished checkpoint has covered yet, and how many of them the one asked for covers. */
  private backlog = 0;
  private covering = 0;
  private readonly roomWaiters: (() => void)[] = [];

  /**
   * `startAtOnce`: the thread starts with the store, not at the first checkpoint. Under tsx a thread
   * compiles its file before it answers, and one still starting when writers pass the backlog holds them
   * back: for a store a request waits on (the rate-limit counters) that is a missed deadline, a 503 (CI:
   * two requests of the per-token throttle spec). Otherwise a connection that writes little never costs
   * a thread.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly pace: CheckpointPace = COUNTER_CHECKPOINTS,
    startAtOnce = true,
  ) {
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    if (startAtOnce) this.started();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startThreadBeside(import.meta.url, 'wal-checkpoint-thread', { path: this.db.name });
    // Never what keeps a process running: closing the store ends it, and so does the process's end.
    worker.unref();
    worker.on('message', () => {
      this.asked = false;
      this.backlog -= this.covering;
      if (this.written >= this.pace.transactionsPerCheckpoint) this.ask();
      if (this.backlog < this.pace.maxBacklog) this.release();
    });
    // Only the backstop is left; the store keeps working.
    const gone = () => {
      this.alive = false;
      this.release();
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    return (this.worker = worker);
  }

  /** Resolves at once, or, while the thread is behind by `maxBacklog` transactions, once it has caught up. */
  room(): Promise<void> | undefined {
    if (!this.alive || this.backlog < this.pace.maxBacklog) return undefined;
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  wrote(): void {
    this.written += 1;
    this.backlog += 1;
    if (!this.asked && this.written >= this.pace.transactionsPerCheckpoint) this.ask();
  }

  private ask(): void {
    if (!this.alive) return;
    this.asked = true;
    this.written = 0;
    this.covering = this.backlog;
    this.started().postMessage('checkpoint');
  }

  async close(): Promise<void> {
    this.alive = false;
    this.release();
    await this.worker?.terminate();
  }

  private release(): void {
    for (const resolve of this.roomWaiters.splice(0)) resolve();
  }
}
