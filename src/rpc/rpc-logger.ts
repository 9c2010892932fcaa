import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import { createLogger, processBindings, type Logger } from '../shared/logger.ts';

export type { Logger };

/** The process's JSON lines, with the same fields as the HTTP service's (`name`, `pid`, `hostname`) and its own name. */
export function createRpcLogger(level: string): Logger {
  return createLogger(level, processBindings('rpc-test-service'));
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
