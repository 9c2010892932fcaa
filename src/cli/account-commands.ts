import { Command } from 'commander';
import { AccountError } from '../accounts/account-store.ts';
import { hashPassword } from '../accounts/passwords.ts';
import { SqliteAccountStore } from '../accounts/sqlite-account-store.ts';
import type { Config } from '../config.ts';
import { readPasswordFromStdin } from './read-password.ts';

export function accountCommands(config: Config): Command {
  const account = new Command('account').description('Manage accounts.');
  account
    .command('create')
    .description('Create an account and print its id.')
    .argument('<username>', 'letters, digits and _ (dots and dashes inside), at most 30')
    .option('--password-stdin', 'read a webmail password from standard input (one trailing newline is dropped)')
    .action(async (username: string, options: { passwordStdin?: boolean }) => {
      // Read (and check) the password before creating anything, so a bad one leaves no half-made account.
      const passwordHash = options.passwordStdin ? await hashPassword(await readPasswordFromStdin()) : null;
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        const created = await store.createAccount(username);
        if (passwordHash) await store.setPasswordHash(created.id, passwordHash);
        process.stdout.write(`${created.id}\n`);
      } finally {
        await store.close();
      }
    });
  account
    .command('password')
    .description('Set the webmail password of an account.')
    .argument('<username-or-id>')
    .requiredOption('--password-stdin', 'read the password from standard input (one trailing newline is dropped)')
    .action(async (who: string) => {
      const passwordHash = await hashPassword(await readPasswordFromStdin());
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        const found = await store.findAccount(who);
        if (!found) throw new AccountError(`no account "${who}"`);
        await store.setPasswordHash(found.id, passwordHash);
        process.stderr.write('password set\n');
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
