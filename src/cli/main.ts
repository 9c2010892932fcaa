import { Command, CommanderError } from 'commander';
import { AccountError } from '../accounts/account-store.ts';
import { StoreUnavailableError } from '../shared/store-unavailable.ts';
import { isErrorNamed } from '../shared/error-by-name.ts';
import { loadConfig } from '../config.ts';
import { EventStoreUnavailableError } from '../events/event-store.ts';
import { RebuildError } from '../projections/admin/rebuild-read-models.ts';
import { FillError } from '../projections/runtime/fill-generation.ts';
import { ReadStoreUnavailableError } from '../projections/stores/read-store.ts';
import { WorkerNumberUnavailableError } from '../shared/ids.ts';
import { redact, rememberSecretsOf } from '../shared/redact.ts';
import { BadSetting } from '../shared/settings.ts';
import { AllWorkerNumbersTakenError } from '../shared/worker-numbers.ts';
import { SqliteOpenError } from '../shared/sqlite.ts';
import { VERSION } from '../shared/version.ts';
import { accountCommands } from './account-commands.ts';
import { auditCommands } from './audit-commands.ts';
import { backupCommand } from './backup-command.ts';
import { exportCommand } from './export-command.ts';
import { verifyCommand } from './verify-command.ts';
import { natsRequestCommand } from './nats-request-command.ts';
import { CliError } from './cli-error.ts';
import { CLI_SETTINGS_HELP } from './cli-settings.ts';
import { projectionCommands } from './projection-commands.ts';
import { OutputClosedError, watchStdout } from './stdout-lines.ts';
import { tokenCommands } from './token-commands.ts';
import { appCommands } from './app-commands.ts';
import { mastodonCommands } from './mastodon-commands.ts';
import { MASTODON_OWNS_ACCOUNTS } from '../mastodon/mastodon-account-store.ts';
import { MastodonDatabaseError } from '../mastodon/mastodon-database.ts';

/**
 * `content-filters` / `npm run --silent cli -- ...`: operator commands on the data directory. Each
 * prints only its result on stdout so scripts can capture it; messages go to stderr.
 */
export function buildCli(): Command {
  const config = loadConfig();
  const program = new Command('content-filters')
    .description('Operate a content-filters data directory (DATA_DIR, default ./data).')
    .version(VERSION, '-V, --version', 'print the version')
    .addHelpText('after', CLI_SETTINGS_HELP)
    .showHelpAfterError()
    .exitOverride();
  for (const command of [accountCommands(config), tokenCommands(config), appCommands(config)]) {
    // Mastodon mode: Mastodon alone keeps accounts, apps and tokens (docs/mastodon.md); nothing here may touch them.
    if (config.mastodonDatabaseUrl) command.hook('preAction', () => Promise.reject(new CliError(MASTODON_OWNS_ACCOUNTS)));
    program.addCommand(command);
  }
  for (const command of auditCommands(config)) program.addCommand(command);
  program.addCommand(exportCommand(config));
  program.addCommand(verifyCommand(config));
  program.addCommand(projectionCommands(config));
  program.addCommand(backupCommand(config));
  program.addCommand(natsRequestCommand(config));
  program.addCommand(mastodonCommands(config));
  return program;
}

/** Failures an operator can act on: one line on stderr and exit code 1, never a stack trace. */
const EXPECTED = [
  AccountError,
  RebuildError,
  FillError,
  EventStoreUnavailableError,
  ReadStoreUnavailableError,
  WorkerNumberUnavailableError,
  AllWorkerNumbersTakenError,
  CliError,
  SqliteOpenError,
  BadSetting,
  StoreUnavailableError,
  MastodonDatabaseError,
];

async function main(argv: string[]): Promise<number> {
  watchStdout();
  rememberSecretsOf(process.env);
  try {
    await buildCli().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    // The reader of stdout went away (`| head -1`): nothing more is wanted.
    if (error instanceof OutputClosedError) return 0;
    if (EXPECTED.some((type) => error instanceof type || isErrorNamed<Error>(error, type))) {
      process.stderr.write(`error: ${redact((error as Error).message)}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    // Unexpected: its stack is for a developer, but never with a credential in it.
    process.stderr.write(`${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv);
