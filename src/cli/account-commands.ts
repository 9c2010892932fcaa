import { Command } from 'commander';
import { AccountError } from '../accounts/account-store.ts';
import { SqliteAccountStore } from '../accounts/sqlite-account-store.ts';
import type { Config } from '../config.ts';

export function accountCommands(config: Config): Command {
  const account = new Command('account').description('Manage accounts.');
  account
    .command('create')
    .description('Create an account and print its id.')
    .argument('<username>', 'letters, digits and _ (dots and dashes inside), at most 30')
    .action(async (username: string) => {
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        const created = await store.createAccount(username);
        process.stdout.write(`${created.id}\n`);
      } finally {
        await store.close();
      }
    });
  account
    .command('show')
    .description('Print an account as JSON.')
    .argument('<username-or-id>')
    .action(async (who: string) => {
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        const found = await store.findAccount(who);
        if (!found) throw new AccountError(`no account "${who}"`);
        process.stdout.write(`${JSON.stringify(found)}\n`);
      } finally {
        await store.close();
      }
    });
  return account;
}
