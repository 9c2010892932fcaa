import { Command } from 'commander';
import { hashPassword } from '../accounts/passwords.ts';
import type { Config } from '../config.ts';
import { OPERATOR, withAccountLog } from './account-log-cli.ts';
import { CliError } from './cli-error.ts';
import { findAccountOrFail, withAccounts } from './account-lookup.ts';
import { promptNewPassword, readNewPassword } from './read-password.ts';
import { withWorkerNumber } from './with-worker-number.ts';
import { openWebmailStores } from '../webmail/webmail-stores.ts';
import { localLoginKey } from '../webmail/mail/local-mailbox.ts';

/** `--password` asks on the terminal; `--password-stdin` reads a pipe (and asks too when stdin is a terminal). */
async function newPasswordFrom(options: { password?: boolean; passwordStdin?: boolean }): Promise<string | null> {
  if (options.passwordStdin) return readNewPassword();
  if (!options.password) return null;
  if (!process.stdin.isTTY) throw new CliError('--password asks on a terminal; to pipe a password in, use --password-stdin');
  return promptNewPassword();
}

export function accountCommands(config: Config): Command {
  const account = new Command('account').description('Manage accounts.');
  account
    .command('create')
    .description('Create an account and print its id.')
    .argument('<username>', 'letters, digits and _ (dots and dashes inside), at most 30')
    .option('--password', 'ask for a webmail password on the terminal (not echoed, twice)')
    .option('--password-stdin', 'read a webmail password from standard input (one trailing newline is dropped)')
    .action(async (username: string, options: { password?: boolean; passwordStdin?: boolean }) => {
      // Read (and check) the password before creating anything, so a bad one leaves no half-made account.
      const password = await newPasswordFrom(options);
      const passwordHash = password === null ? null : await hashPassword(password);
      await withAccounts(config, false, (store) =>
        withAccountLog(config, async (record) => {
          const created = await withWorkerNumber(config, () => store.createAccount(username));
          if (passwordHash) await store.setPasswordHash(created.id, passwordHash);
          const { id: accountId, createdAt } = created;
          const data = { accountId, username: created.username, withPassword: passwordHash !== null, createdAt, actor: OPERATOR };
          await record({ type: 'AccountCreated', data }, `account ${created.username} (${accountId}) was created`);
          process.stdout.write(`${accountId}\n`);
        }),
      );
    });
  account
    .command('password')
    .description('Set the webmail password of an account: asked on a terminal (not echoed, twice), else read from standard input.')
    .argument('<username-or-id>')
    .option('--password-stdin', 'read the password from standard input when it is a pipe or a file (the default there anyway)')
    .action(async (who: string) => {
      const passwordHash = await hashPassword(await readNewPassword());
      await withAccounts(config, true, (store) =>
        withAccountLog(config, async (record) => {
          const { id: accountId, username } = await findAccountOrFail(store, who);
          await store.setPasswordHash(accountId, passwordHash);
          const data = { accountId, changedAt: new Date().toISOString(), actor: OPERATOR };
          await record({ type: 'PasswordChanged', data }, `the password of ${username} was set`);
          process.stderr.write('password set\n');
        }),
      );
    });
  account
    .command('unlock')
    .description(
      'Clear the failed webmail logins that locked an account out of the webmail (WEBMAIL_LOGIN_RATE_LIMIT), so it may log in again at once. App sign-in (OAuth) never locks.',
    )
    .argument('<username-or-id>')
    .action(async (who: string) => {
      await withAccounts(config, true, async (store) => {
        const found = await findAccountOrFail(store, who);
        // Only forget() is called: the session lifetime and lock policy given here are never used.
        const webmail = await openWebmailStores({
          dataDir: config.dataDir,
          mongodbUrl: config.mongodbUrl,
          idleMillis: 1,
          rateLimit: { limit: 0, windowMillis: 1 },
        });
        try {
          await webmail.rateLimit.forget(localLoginKey(found.username));
        } finally {
          await webmail.close();
        }
        process.stderr.write(`unlocked ${found.username}\n`);
      });
    });
  account
    .command('show')
    .description('Print an account as JSON.')
    .argument('<username-or-id>')
    .action(async (who: string) => {
      await withAccounts(config, true, async (store) => {
        process.stdout.write(`${JSON.stringify(await findAccountOrFail(store, who))}\n`);
      });
    });
  return account;
}
