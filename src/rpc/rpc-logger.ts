import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import { createLogger, type Logger } from '../shared/logger.ts';

export type { Logger };

/** The process's JSON lines, tagged so they can be told apart from the HTTP service's. */
export function createRpcLogger(level: string): Logger {
  return createLogger(level, { service: 'rpc-test-service', pid: process.pid });
}

/**
 * grpc-js writes its own errors (and GRPC_TRACE output) as plain text on stderr; this makes them JSON
 * lines of the same log. It is process-wide, so only the entry point calls it.
 */
export function routeGrpcLogs(logger: Logger): void {
  const line =
    (write: (fields: object, message: string) => void) =>
    (message?: unknown, ...rest: unknown[]) =>
      write({ event: 'grpc_js' }, format(message, ...rest));
  setLogger({
    error: line((fields, message) => logger.error(fields, message)),
    info: line((fields, message) => logger.info(fields, message)),
    debug: line((fields, message) => logger.debug(fields, message)),
  });
}
