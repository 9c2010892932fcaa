import { Command, CommanderError } from 'commander';
import { AccountError } from '../accounts/account-store.ts';
import { loadConfig } from '../config.ts';
import { RebuildError } from '../projections/rebuild-read-models.ts';
import { accountCommands } from './account-commands.ts';
import { auditCommands } from './audit-commands.ts';
import { projectionCommands } from './projection-commands.ts';
import { tokenCommands } from './token-commands.ts';

/**
 * `content-filters` / `npm run --silent cli -- ...`: operator commands on the data directory. Each
 * prints only its result on stdout so scripts can capture it; messages go to stderr.
 */
export function buildCli(): Command {
  const config = loadConfig();
  const program = new Command('content-filters')
    .description('Operate a content-filters data directory (DATA_DIR, default ./data).')
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(accountCommands(config));
  program.addCommand(tokenCommands(config));
  for (const command of auditCommands(config)) program.addCommand(command);
  program.addCommand(projectionCommands(config));
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof AccountError || error instanceof RebuildError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv);
