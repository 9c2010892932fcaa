import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout, one object per line. */
export function createLogger(level: string, name = 'content-filters'): Logger {
  return pino({ name, level });
}

export const silentLogger: Logger = pino({ level: 'silent' });
