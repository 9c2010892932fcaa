import { Command } from 'commander';
import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { OAuthApp, OAuthStore } from '../oauth/oauth-store.ts';
import { openOAuthStore } from '../stores.ts';
import { storePath } from '../shared/store-files.ts';
import { withAccounts } from './account-lookup.ts';
import { OPERATOR, withAccountLog } from './account-log-cli.ts';
import { CliError } from './cli-error.ts';
import { writeLine } from './stdout-lines.ts';

/**
 * Runs `work` with the apps the server registered (in MongoDB when MONGODB_URL is set), or with null
 * when no app was ever registered in DATA_DIR (no oauth.sqlite yet: a reading command leaves no empty file behind).
 */
export async function withApps<T>(config: Config, work: (store: OAuthStore | null) => Promise<T>): Promise<T> {
  if (!config.mongodbUrl && !existsSync(storePath(config.dataDir, 'oauth'))) return work(null);
  const store = await openOAuthStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const appLine = (app: OAuthApp) => {
  const { id, clientId, name, website, redirectUris, scopes, createdAt, revokedAt } = app;
  return JSON.stringify({ id, clientId, name, website, redirectUris, scopes, createdAt, revokedAt });
};

export function appCommands(config: Config): Command {
  const app = new Command('app').description('Manage the OAuth apps clients registered (POST /api/v1/apps).');
  app
    .command('list')
    .description('Print every app as NDJSON, oldest first: id, clientId, name, website, redirectUris, scopes, createdAt, revokedAt (never its secret).')
    .action(async () => {
      await withApps(config, async (store) => {
        for (const registered of (await store?.listApps()) ?? []) await writeLine(appLine(registered));
      });
    });
  app
    .command('revoke')
    .description('Revoke an app by its id or client id: it can no longer sign anyone in, and every token it was given is refused from then on.')
    .argument('<app-id-or-client-id>')
    .action(async (value: string) => {
      await withApps(config, async (store) => {
        const found = store ? ((await store.findAppById(value)) ?? (await store.findApp(value))) : null;
        const tokenIds = found ? await store!.revokeApp(found.id) : null;
        if (!found || tokenIds === null) throw new CliError(`no active app ${value}`);
        await withAccounts(config, true, (accounts) =>
          withAccountLog(config, async (record) => {
            // Every token is revoked before any is recorded: a log that fails midway leaves none of them working.
            const revoked = [];
            for (const tokenId of tokenIds) {
              const token = await accounts.findToken(tokenId);
              if (token && (await accounts.revokeTokenById(tokenId)))
                revoked.push({ accountId: token.accountId, tokenId, revokedAt: new Date().toISOString() });
            }
            for (const token of revoked) {
              const data = { ...token, appRevoked: found.id, actor: OPERATOR };
              await record({ type: 'TokenRevoked', data }, `app ${found.id} and its ${revoked.length} token(s) were revoked`);
            }
          }),
        );
        process.stderr.write(`revoked, with ${tokenIds.length} account token(s)\n`);
      });
    });
  return app;
}
