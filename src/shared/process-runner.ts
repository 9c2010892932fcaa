import { exitGracefully, type Stoppable } from './graceful-shutdown.ts';
import type { Logger } from './logger.ts';
import { informationAsked, UsageError, type ProcessHelp } from './process-help.ts';
import { rememberSecretsOf } from './redact.ts';
import { BadSetting } from './settings.ts';

export interface ProcessDefinition<Config extends { readonly logLevel: string }> {
  /** What --help prints (the settings loadConfig reads); --version prints the package's version. */
  readonly help: ProcessHelp;
  /** Reads and checks every setting before anything starts. */
  readonly loadConfig: (env: NodeJS.ProcessEnv) => Config;
  readonly createLogger: (level: string) => Logger;
  /** Opens stores, binds ports; logs its own "listening" line. */
  readonly start: (config: Config, logger: Logger) => Promise<Stoppable>;
  /** Fields for the fatal line when start fails (e.g. the address it could not bind). */
  readonly startFailure?: (config: Config) => Record<string, unknown>;
  /** How long a graceful shutdown may take before the process exits 1 anyway. */
  readonly shutdownLimitMs?: (config: Config) => number;
}

function fatal(logger: Logger, fields: Record<string, unknown>, message: string): never {
  logger.fatal(fields, message);
  process.exit(1);
}

/**
 * The error of a failed start, each cause said once: pino's serializer appends every cause's message to
 * the error's own, and ours already quote their cause (`cannot use /proc/nope for SQLite files: cannot
 * create directory /proc/nope: ENOENT ...`), which printed the same cause three times.
 */
function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const causes: string[] = [];
  let said = error.message;
  for (let cause = error.cause; cause instanceof Error && causes.length < 5; cause = cause.cause) {
    if (!said.includes(cause.message)) causes.push(cause.message);
    said += cause.message;
  }
  return { type: error.name, message: error.message, ...(causes.length > 0 ? { causes } : {}), stack: error.stack };
}

const failureFields = (error: unknown): Record<string, unknown> =>
  error instanceof BadSetting ? { event: 'bad_config', variable: error.variable } : { event: 'start_failed', err: errorFields(error) };

/**
 * How every process of the project starts and stops: a bad setting, a failed start or an error nobody
 * caught ends it at once with one `fatal` JSON line and exit code 1 (never a raw stack trace on stderr);
 * SIGTERM/SIGINT shut it down gracefully.
 */
export async function runProcess<Config extends { readonly logLevel: string }>(definition: ProcessDefinition<Config>): Promise<void> {
  let information: string | null;
  try {
    information = informationAsked(process.argv.slice(2), definition.help);
  } catch (error) {
    // A usage error is for the person who typed the command, as every command-line tool answers it.
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(2);
  }
  if (information !== null) {
    process.stdout.write(information);
    return;
  }
  // Before anything can log: every secret of the settings is known to the redaction of log lines.
  rememberSecretsOf(process.env);
  let config: Config;
  try {
    config = definition.loadConfig(process.env);
  } catch (error) {
    fatal(definition.createLogger('info'), failureFields(error), (error as Error).message);
  }
  const logger = definition.createLogger(config.logLevel);
  process.on('uncaughtException', (error) => fatal(logger, { event: 'crashed', err: error }, `uncaught exception: ${error.message}`));
  process.on('unhandledRejection', (reason) =>
    fatal(logger, { event: 'crashed', err: reason }, `unhandled rejection: ${String((reason as Error)?.message ?? reason)}`),
  );
  const stopOnSignal = exitGracefully(logger, definition.shutdownLimitMs?.(config));
  let running: Stoppable;
  try {
    running = await definition.start(config, logger);
  } catch (error) {
    const fields = error instanceof BadSetting ? failureFields(error) : { ...failureFields(error), ...definition.startFailure?.(config) };
    fatal(logger, fields, error instanceof BadSetting ? error.message : `could not start: ${(error as Error).message}`);
  }
  stopOnSignal(running);
}
