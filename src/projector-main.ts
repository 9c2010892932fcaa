import { loadConfig } from './config.ts';
import { startProjectorService } from './projector-service.ts';
import { exitGracefully } from './shared/graceful-shutdown.ts';
import { createLogger } from './shared/logger.ts';
import { describeStores } from './stores.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'content-filters-projector');

try {
  const running = await startProjectorService(config, logger);
  logger.info({ url: running.url, ...describeStores(config), owner: running.projector.owner, leaseMs: config.projectorLeaseMs }, 'projector listening');
  exitGracefully(logger, running.close);
} catch (error) {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
}
