import { CONFIG_SETTINGS } from './config-help.ts';
import { loadConfig } from './config.ts';
import { describeNats } from './notifications/nats-connection-options.ts';
import { startService } from './service.ts';
import { createLogger } from './shared/logger.ts';
import { tightenDataDirAtStart } from './shared/private-files.ts';
import { runProcess } from './shared/process-runner.ts';
import { VERSION } from './shared/version.ts';
import { describeStores } from './stores.ts';
import { WEBMAIL_SETTINGS } from './webmail/webmail-settings-help.ts';
import { loadWebmailConfig } from './webmail/webmail-config.ts';

/** `npm start` / `npm run api`: the HTTP API, the webmail and (unless PROJECTOR=off) a projector. */
await runProcess({
  help: {
    usage: 'npm start | npm run api | node dist/main.js',
    summary: 'The filters HTTP API, the webmail and (unless PROJECTOR=off) a projector.',
    settings: [...CONFIG_SETTINGS, ...WEBMAIL_SETTINGS],
  },
  loadConfig: (env) => {
    const config = loadConfig(env);
    loadWebmailConfig(config.dataDir, env); // checked here too, so a bad one is refused before any store opens
    return config;
  },
  createLogger: (level) => createLogger(level),
  start: async (config, logger) => {
    tightenDataDirAtStart(config.dataDir, logger);
    const service = await startService({ config, logger });
    logger.info(
      {
        event: 'listening',
        // Where it is bound (0.0.0.0: every interface), beside the URL a client on this host can use.
        address: service.address,
        url: service.url,
        version: VERSION,
        dataDir: config.dataDir,
        nats: config.natsUrl === undefined ? 'off' : describeNats(config.natsUrl),
        redis: config.redisUrl ? 'on' : 'off',
        ...describeStores(config),
        projector: config.projector,
      },
      'content-filters listening',
    );
    return service;
  },
  startFailure: (config) => ({ host: config.host, port: config.port, dataDir: config.dataDir }),
});
