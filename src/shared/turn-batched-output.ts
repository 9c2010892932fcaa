/** Where the lines go once a turn: a synchronous writer (pino's SonicBoom on stdout, which retries EAGAIN and short writes). */
export interface LineSink {
  write(text: string): unknown;
}

/**
 * A log destination that gathers the lines written during one turn of the event loop and hands them
 * to the sink as one write when the turn's I/O callbacks are done (setImmediate runs after the poll
 * phase): a server answering many requests in a turn pays one system call for all their log lines, not
 * one each. Lines keep their order, since every logger of the process shares one of these. Nothing is
 * lost when the process exits: the 'exit' event (process.exit, a fatal line, the end of the event loop)
 * writes what is pending synchronously. Only a kill that runs no JavaScript (SIGKILL, a signal without a
 * handler) can lose lines, those of the turn it cuts, as it could cut a synchronous write too.
 */
/** Past this many characters pending, a turn's lines are written at once: one turn's logging never holds more. */
const MAX_PENDING_CHARS = 64 * 1024;

export class TurnBatchedOutput {
  private pending: string[] = [];
  private pendingChars = 0;
  private scheduled = false;
  private readonly flushNow = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly sink: LineSink) {
    process.on('exit', this.flushNow);
  }

  write(line: string): boolean {
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= MAX_PENDING_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
    return true;
  }

  /** Writes every pending line now; pino's logger.flush() calls it too. */
  flush(done?: (error?: Error) => void): void {
    if (this.pending.length > 0) {
      const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
      this.pending = [];
      this.pendingChars = 0;
      this.sink.write(text);
    }
    done?.();
  }
}
