import { Command } from 'commander';
import { parseScopes } from '../accounts/account-store.ts';
import { splitToken } from '../accounts/token-secret.ts';
import type { Config } from '../config.ts';
import { isId } from '../shared/ids.ts';
import { findAccountOrFail, withAccounts } from './account-lookup.ts';
import { withApps } from './app-commands.ts';
import { OPERATOR, revokersOf, withAccountLog } from './account-log-cli.ts';
import { CliError } from './cli-error.ts';
import { writeLine } from './stdout-lines.ts';
import { withWorkerNumber } from './with-worker-number.ts';

export function tokenCommands(config: Config): Command {
  const token = new Command('token').description('Manage access tokens.');
  token
    .command('create')
    .description('Create an access token for an account and print it (it is shown only once).')
    .argument('<username-or-id>')
    .option('--scopes <scopes>', 'space-separated scopes; read covers read:filters, write covers write:filters', 'read:filters write:filters')
    .action(async (who: string, options: { scopes: string }) => {
      const scopes = parseScopes(options.scopes);
      await withAccounts(config, false, (store) =>
        withAccountLog(config, async (record) => {
          const account = await findAccountOrFail(store, who);
          const token = await withWorkerNumber(config, () => store.createToken(account.id, scopes));
          const { tokenId } = splitToken(token)!;
          const data = { accountId: account.id, tokenId, scopes, appId: null, issuedAt: new Date().toISOString(), actor: OPERATOR };
          // A token the log does not show is revoked again before anyone saw it, so none works unrecorded.
          await record({ type: 'TokenIssued', data }, `token ${tokenId} was made`).catch(async (error: unknown) => {
            await store.revokeTokenById(tokenId);
            throw new CliError(`${(error as Error).message}; it was revoked again and not printed`);
          });
          process.stdout.write(`${token}\n`);
        }),
      );
    });
  token
    .command('list')
    .description(
      "Print an account's tokens as NDJSON, oldest first: tokenId (as in event metadata), the app that signed in for it (null: made here), scopes, createdAt, lastUsedAt (to the minute), revokedAt, revokedBy (the actor the event log recorded).",
    )
    .argument('<username-or-id>')
    .action(async (who: string) => {
      await withAccounts(config, true, async (store) => {
        const account = await findAccountOrFail(store, who);
        const revokers = await revokersOf(config, account.id);
        await withApps(config, async (apps) => {
          for (const record of await store.listTokens(account.id)) {
            const { tokenId, scopes, createdAt, lastUsedAt, revokedAt } = record;
            const app = (await apps?.appOfToken(tokenId))?.name ?? null;
            // Revoked before revocations were recorded (or never): who did it is not known.
            const revokedBy = revokedAt === null ? null : (revokers.get(tokenId) ?? null);
            await writeLine(JSON.stringify({ tokenId, account: account.username, app, scopes, createdAt, lastUsedAt, revokedAt, revokedBy }));
          }
        });
      });
    });
  token
    .command('revoke')
    .description('Revoke an access token, given whole or by its id (the tokenId of event metadata and `token list`); it is refused from then on.')
    .argument('<token-or-token-id>')
    .action(async (value: string) => {
      const byId = isId(value) && splitToken(value) === null;
      await withAccounts(config, true, (store) =>
        withAccountLog(config, async (record) => {
          const tokenId = byId ? value : splitToken(value)?.tokenId;
          const found = tokenId === undefined ? null : await store.findToken(tokenId);
          const revoked = byId ? await store.revokeTokenById(value) : await store.revokeToken(value);
          if (!revoked || !found) {
            // Revoking twice is harmless, but the operator should learn it was done already, and when.
            const revokedAt = tokenId === undefined ? null : await store.tokenRevokedAt(tokenId);
            if (revokedAt !== null) throw new CliError(`token ${tokenId} is already revoked (since ${revokedAt})`);
            throw new CliError(byId ? `no active token with id ${value}` : 'no such active token');
          }
          const data = { accountId: found.accountId, tokenId: found.tokenId, appRevoked: null, revokedAt: new Date().toISOString(), actor: OPERATOR };
          await record({ type: 'TokenRevoked', data }, `token ${found.tokenId} was revoked`);
          process.stderr.write('revoked\n');
        }),
      );
    });
  return token;
}
