import { loadConfig } from './config.ts';
import { startService } from './service.ts';
import { createLogger } from './shared/logger.ts';
import { describeStores } from './stores.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);

try {
  const service = await startService({ config, logger });
  logger.info(
    { url: service.url, dataDir: config.dataDir, nats: config.natsUrl ?? 'in-process', ...describeStores(config), projector: config.projector },
    'content-filters listening',
  );
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 15_000);
    await service.close();
    clearTimeout(timer);
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
} catch (error) {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
}
