import { loadRpcConfig, type RpcConfig } from './rpc-config.ts';
import { createRpcLogger, routeGrpcLogs, type Logger } from './rpc-logger.ts';
import { startRpcServer, type RunningRpcServer } from './rpc-server.ts';

/**
 * `npm run rpc`: the TestService in its own process. SIGTERM or SIGINT stops taking calls, lets
 * in-flight calls finish (up to RPC_SHUTDOWN_GRACE_MS) and exits 0; a second signal cuts them at once.
 * A bad setting or an address that cannot be bound exits 1 after one fatal log line.
 */
async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createRpcLogger(config.logLevel);
  routeGrpcLogs(logger);
  let server: RunningRpcServer;
  try {
    server = await startRpcServer({ ...config, logger });
  } catch (error) {
    logger.fatal({ event: 'listen_failed', host: config.host, port: config.port, err: error }, 'cannot listen');
    process.exit(1);
  }
  stopOnSignals(server, config, logger);
}

function configOrExit(): RpcConfig {
  try {
    return loadRpcConfig();
  } catch (error) {
    createRpcLogger('info').fatal({ event: 'bad_config' }, (error as Error).message);
    process.exit(1);
  }
}

function stopOnSignals(server: RunningRpcServer, config: RpcConfig, logger: Logger): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ event: 'shutdown', signal, openStreams: server.streams.open }, 'second signal: cancelling calls');
      server.forceShutdown();
      return;
    }
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    logger.info({ event: 'shutdown', signal, openStreams: server.streams.open, graceMs }, 'draining in-flight calls');
    const outcome = await server.shutdown(graceMs);
    logger.info({ event: 'stopped', outcome, openStreams: server.streams.open }, 'gRPC TestService stopped');
    // pino writes to stdout synchronously, so exiting here loses no log line.
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
