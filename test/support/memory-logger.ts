import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LoggedLine = Record<string, unknown> & { level: number; msg: string };

/** A real pino logger whose lines are kept, parsed, in `lines`. */
export function memoryLogger(): { logger: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as LoggedLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
