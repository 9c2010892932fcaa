import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout, one object per event, tagged so they can be told apart from the HTTP service's.
 * Written synchronously: lines stay in order and none is lost when the process exits right after one.
 */
export function createRpcLogger(level: string): Logger {
  return pino({ level, base: { service: 'rpc-test-service', pid: process.pid } }, pino.destination({ dest: 1, sync: true }));
}

/** For tests and benchmarks that start servers in-process and want no output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * grpc-js writes its own errors (and GRPC_TRACE output) as plain text on stderr; this makes them JSON
 * lines of the same log. It is process-wide, so only the entry point calls it.
 */
export function routeGrpcLogs(logger: Logger): void {
  const line = (write: (fields: object, message: string) => void) => (message?: unknown, ...rest: unknown[]) =>
    write({ event: 'grpc_js' }, format(message, ...rest));
  setLogger({
    error: line((fields, message) => logger.error(fields, message)),
    info: line((fields, message) => logger.info(fields, message)),
    debug: line((fields, message) => logger.debug(fields, message)),
  });
}
