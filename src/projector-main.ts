import { loadConfig } from './config.ts';
import { startProjectorService } from './projector-service.ts';
import { createLogger, processBindings } from './shared/logger.ts';
import { runProcess } from './shared/process-runner.ts';
import { describeStores } from './stores.ts';

/** `npm run projector`: the projector as its own process, with /health and /metrics. */
await runProcess({
  loadConfig,
  createLogger: (level) => createLogger(level, processBindings('content-filters-projector')),
  start: async (config, logger) => {
    const running = await startProjectorService(config, logger);
    logger.info({ url: running.url, ...describeStores(config), owner: running.projector.owner, leaseMs: config.projectorLeaseMs }, 'projector listening');
    return running;
  },
  startFailure: (config) => ({ host: config.host, port: config.port, dataDir: config.dataDir }),
});
