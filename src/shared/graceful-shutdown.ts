import type { Logger } from './logger.ts';

/**
 * On SIGTERM or SIGINT: run `close` (stop taking work, finish what is in flight, close stores) and exit 0;
 * exit 1 if that takes longer than `limitMs`. A second signal while closing changes nothing.
 */
export function exitGracefully(logger: Logger, close: () => Promise<void>, limitMs = 15_000): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, limitMs);
    try {
      await close();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    clearTimeout(timer);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
