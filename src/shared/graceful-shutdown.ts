import type { Logger } from './logger.ts';

export interface Stoppable {
  /**
   * Stops taking work, finishes what is in flight and closes its stores; what it resolves with is added
   * to the `stopped` log line.
   */
  close(): Promise<Record<string, unknown> | void>;
  /** A second signal while closing: cut what is still in flight (by default it changes nothing). */
  forceClose?(): void;
  /** Added to the `shutdown` log line. */
  shutdownDetails?(): Record<string, unknown>;
}

/**
 * The one graceful shutdown of every process: on SIGTERM or SIGINT run `close` and exit 0; exit 1 if it
 * fails or takes longer than `limitMs`. Each step is one JSON line (`event`: shutdown, stopped).
 *
 * It listens from the moment it is called, before the process has started: a signal that arrives while
 * it starts is kept, and the shutdown runs as soon as the returned function hands over what started.
 */
export function exitGracefully(logger: Logger, limitMs = 15_000): (started: Stoppable) => void {
  let running: Stoppable | undefined;
  let requested: NodeJS.Signals | undefined;
  let closing = false;

  const shutdown = async (service: Stoppable, signal: NodeJS.Signals) => {
    closing = true;
    logger.info({ event: 'shutdown', signal, ...service.shutdownDetails?.() }, 'shutting down');
    const timer = setTimeout(() => {
      logger.fatal({ event: 'shutdown_timeout', limitMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, limitMs);
    try {
      const details = await service.close();
      clearTimeout(timer);
      logger.info({ event: 'stopped', ...details }, 'stopped');
      process.exit(0);
    } catch (error) {
      logger.fatal({ event: 'shutdown_failed', err: error }, 'shutdown failed');
      process.exit(1);
    }
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (running === undefined) {
      requested ??= signal;
      return;
    }
    if (!closing) return void shutdown(running, signal);
    if (running.forceClose) {
      logger.warn({ event: 'shutdown', signal }, 'second signal: cutting what is still in flight');
      running.forceClose();
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  return (started) => {
    running = started;
    if (requested !== undefined) void shutdown(started, requested);
  };
}
