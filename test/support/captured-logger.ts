import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

/** A pino logger whose lines a test reads, and can wait for. */
export function capturedLogger(level = 'debug'): { logger: Logger; lines: LogLine[]; waitFor(match: (line: LogLine) => boolean): Promise<LogLine> } {
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n').filter(Boolean)) {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const waiter of waiters.filter((w) => w.match(line))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      done();
    },
  });
  return {
    logger: pino({ level }, sink),
    lines,
    waitFor: (match) => {
      const seen = lines.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}
