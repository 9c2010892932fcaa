import { PROJECTOR_SETTINGS, projectorEnvironment } from './config-help.ts';
import { loadConfig } from './config.ts';
import { startProjectorService } from './projector-service.ts';
import { createLogger, processBindings } from './shared/logger.ts';
import { tightenDataDirAtStart } from './shared/private-files.ts';
import { runProcess } from './shared/process-runner.ts';
import { VERSION } from './shared/version.ts';
import { describeStores } from './stores.ts';

/** `npm run projector`: the projector as its own process, with /health and /metrics. */
await runProcess({
  help: {
    usage: 'npm run projector | node dist/projector-main.js',
    summary: 'The projector as its own process, with /health and /metrics.',
    settings: PROJECTOR_SETTINGS,
  },
  loadConfig: (env) => loadConfig(projectorEnvironment(env)),
  createLogger: (level) => createLogger(level, processBindings('content-filters-projector')),
  start: async (config, logger) => {
    tightenDataDirAtStart(config.dataDir, logger);
    const running = await startProjectorService(config, logger);
    logger.info(
      {
        event: 'listening',
        address: running.address,
        url: running.url,
        version: VERSION,
        ...describeStores(config),
        owner: running.projector.owner,
        leaseMs: config.projectorLeaseMs,
      },
      'projector listening',
    );
    return running;
  },
  startFailure: (config) => ({ host: config.host, port: config.port, dataDir: config.dataDir }),
});
