import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { redact } from './redact.ts';
import type { SettingRow } from './setting-table.ts';
import { TurnBatchedOutput } from './turn-batched-output.ts';

export type { Logger };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `LOG_LEVEL`, read and listed the same way by every process. */
export const LOG_LEVEL_SETTING: SettingRow<LogLevel> = {
  fallback: 'info',
  meaning: 'trace, debug, info, warn, error, fatal or silent',
  read: (settings, name) => settings.oneOf(name, 'info', LOG_LEVELS),
};

/** Every logger of the process writes through this one, so lines keep their order across loggers. */
let stdoutLines: TurnBatchedOutput | null = null;

/**
 * Structured JSON logs on stdout, one object per line, gathered per turn of the event loop and written
 * synchronously (turn-batched-output.ts): lines stay in order and none is lost when the process exits
 * right after one (a fatal line, then exit 1). Every line passes through `redact` on its way out, so no
 * code path (a driver's error quoting a URL) can log a secret.
 */
export function createLogger(level: string, base: Record<string, unknown> = processBindings('content-filters')): Logger {
  stdoutLines ??= new TurnBatchedOutput(pino.destination({ dest: 1, sync: true }));
  return pino({ level, base, hooks: { streamWrite: redact } }, stdoutLines);
}

/** What every line of a service's log carries: its name, process id and host. */
export const processBindings = (name: string): Record<string, unknown> => ({ name, pid: process.pid, hostname: hostname() });

/** For tests and benchmarks that run servers in-process and want no output. */
export const silentLogger: Logger = pino({ level: 'silent' });
