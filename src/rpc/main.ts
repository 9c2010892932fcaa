import { runProcess } from '../shared/process-runner.ts';
import { helpOf } from '../shared/setting-table.ts';
import { loadRpcConfig, RPC_SETTING_TABLE } from './rpc-config.ts';
import { createRpcLogger, routeGrpcLogs } from './rpc-logger.ts';
import { startRpcServer } from './rpc-server.ts';

/**
 * `npm run rpc`: the TestService in its own process. SIGTERM or SIGINT stops taking calls, lets
 * in-flight calls finish (up to RPC_SHUTDOWN_GRACE_MS) and exits 0; a second signal cuts them at once.
 * A bad setting or an address that cannot be bound exits 1 after one fatal log line.
 */
await runProcess({
  help: {
    usage: 'npm run rpc | node dist/rpc/main.js',
    summary: 'The gRPC TestService (with health and reflection) in its own process.',
    settings: helpOf(RPC_SETTING_TABLE),
  },
  loadConfig: loadRpcConfig,
  createLogger: createRpcLogger,
  start: async (config, logger) => {
    routeGrpcLogs(logger);
    const server = await startRpcServer({ ...config, logger });
    return {
      shutdownDetails: () => ({ openStreams: server.streams.open, graceMs: config.shutdownGraceMs }),
      close: async () => ({ outcome: await server.shutdown(config.shutdownGraceMs), openStreams: server.streams.open }),
      forceClose: () => server.forceShutdown(),
    };
  },
  startFailure: (config) => ({ host: config.host, port: config.port }),
  // The grace period cancels what is left, so closing ends shortly after it.
  shutdownLimitMs: (config) => config.shutdownGraceMs + 10_000,
});
