import { Command } from 'commander';
import { AccountError, parseScopes } from '../accounts/account-store.ts';
import { SqliteAccountStore } from '../accounts/sqlite-account-store.ts';
import type { Config } from '../config.ts';

export function tokenCommands(config: Config): Command {
  const token = new Command('token').description('Manage access tokens.');
  token
    .command('create')
    .description('Create an access token for an account and print it (it is shown only once).')
    .argument('<username-or-id>')
    .option('--scopes <scopes>', 'space-separated scopes; read covers read:filters, write covers write:filters', 'read:filters write:filters')
    .action(async (who: string, options: { scopes: string }) => {
      const scopes = parseScopes(options.scopes);
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        const account = await store.findAccount(who);
        if (!account) throw new AccountError(`no account "${who}"`);
        process.stdout.write(`${await store.createToken(account.id, scopes)}\n`);
      } finally {
        await store.close();
      }
    });
  token
    .command('revoke')
    .description('Revoke an access token; it is refused from then on.')
    .argument('<token>')
    .action(async (value: string) => {
      const store = SqliteAccountStore.inDataDir(config.dataDir);
      try {
        if (!(await store.revokeToken(value))) throw new AccountError('no such active token');
        process.stderr.write('revoked\n');
      } finally {
        await store.close();
      }
    });
  return token;
}
