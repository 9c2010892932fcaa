import { Command } from 'commander';
import type { Config } from '../config.ts';
import { CliError } from './cli-error.ts';
import { verifyReadModels } from './verify-read-models.ts';

/** `verify`: checks of what the service stores. */
export function verifyCommand(config: Config): Command {
  return new Command('verify')
    .description('Check what the service stores.')
    .option('--read-models', "replay the log into a scratch generation and compare every account's v1 and v2 read models with it; exit 1 on any difference")
    .action(async (options: { readModels?: boolean }) => {
      if (options.readModels) return verifyReadModels(config);
      throw new CliError('verify: give --read-models');
    });
}
