import { loadRpcConfig } from './rpc-config.ts';
import { createRpcLogger } from './rpc-logger.ts';
import { startRpcServer } from './rpc-server.ts';

/**
 * `npm run rpc`: the TestService in its own process. SIGTERM or SIGINT stops taking calls, lets
 * in-flight calls finish (up to RPC_SHUTDOWN_GRACE_MS) and exits 0; a second signal cuts them at once.
 */
async function main(): Promise<void> {
  const config = loadRpcConfig();
  const logger = createRpcLogger(config.logLevel);
  const server = await startRpcServer({ ...config, logger });

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ event: 'shutdown', signal, openStreams: server.streams.open }, 'second signal: cancelling calls');
      server.forceShutdown();
      return;
    }
    stopping = true;
    logger.info({ event: 'shutdown', signal, openStreams: server.streams.open, graceMs: config.shutdownGraceMs }, 'draining');
    const outcome = await server.shutdown(config.shutdownGraceMs);
    logger.info({ event: 'stopped', outcome, openStreams: server.streams.open }, 'gRPC TestService stopped');
    // pino writes stdout synchronously, so nothing is lost by exiting here.
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
