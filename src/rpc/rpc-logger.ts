import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout, one object per event, tagged so they can be told apart from the HTTP service's. */
export function createRpcLogger(level: string): Logger {
  return pino({ level, base: { service: 'rpc-test-service', pid: process.pid } });
}

/** For tests and benchmarks that start servers in-process and want no output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
