import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import type { Config } from '../config.ts';
import { PRIVATE_DIRECTORY_MODE } from '../shared/directories.ts';
import { createPrivateFile, PRIVATE_FILE_MODE } from '../shared/private-files.ts';
import { STORE_FILES, type StoreServer } from '../shared/store-files.ts';
import { userPath } from './user-path.ts';
import { CliError } from './cli-error.ts';

/** The webmail's own key (unless WEBMAIL_DES_KEY): without it the IMAP passwords sealed in the restored sessions are noise. */
const KEY_FILE = 'webmail-des-key';

const serverSetting: Record<StoreServer, (config: Config) => string | undefined> = {
  EVENTSTORE_URL: (config) => config.eventStoreUrl,
  MONGODB_URL: (config) => config.mongodbUrl,
  REDIS_URL: (config) => config.redisUrl,
};

/**
 * Where each store lives under the settings: copied here, or left to its server's own tools. The list is
 * STORE_FILES, in its order: the read models go before the event log, because each copy is a snapshot of
 * its own file, so in this order the read models' checkpoint never names an event the copied log lacks
 * (the projector catches up on the rest after a restore), whereas the other order could leave a
 * checkpoint past the log's end, and events appended after the restore would be skipped. A `.sqlite`
 * file in DATA_DIR that the list does not know (left by another build) is copied after them.
 */
function plan(config: Config): { copied: string[]; elsewhere: string[] } {
  const copied: string[] = [];
  const elsewhere: string[] = [];
  for (const { file, movedBy } of Object.values(STORE_FILES)) {
    const server = movedBy.find((setting) => serverSetting[setting](config) !== undefined);
    if (server !== undefined) elsewhere.push(`${file.replace('.sqlite', '')} (${server})`);
    else if (existsSync(join(config.dataDir, file))) copied.push(file);
  }
  const known = new Set<string>(Object.values(STORE_FILES).map((store) => store.file));
  const files = existsSync(config.dataDir) ? readdirSync(config.dataDir, { withFileTypes: true }) : [];
  for (const entry of files) if (entry.isFile() && entry.name.endsWith('.sqlite') && !known.has(entry.name)) copied.push(entry.name);
  return { copied, elsewhere };
}

/** A consistent copy of one SQLite file through SQLite's online backup, while others keep writing to it. */
async function copyStore(from: string, to: string): Promise<void> {
  const db = new Database(from, { fileMustExist: true, timeout: 5000 });
  try {
    // Written under a temporary name: a backup cut short never looks like a complete one. Made 0600
    // first, since SQLite would create it 0644 (less the umask).
    createPrivateFile(`${to}.partial`);
    await db.backup(`${to}.partial`);
    renameSync(`${to}.partial`, to);
  } finally {
    db.close();
  }
}

/** `backup <dir>`: an online copy of every embedded store into an empty (or new) directory. */
export function backupCommand(config: Config): Command {
  return new Command('backup')
    .description(
      'Copy every SQLite store of DATA_DIR (and the webmail key) into <dir> while the service runs, one name per line on stdout; restore by starting with DATA_DIR=<a copy of dir>.',
    )
    .argument('<dir>', 'an empty or missing directory to write the copies to')
    .action(async (dir: string) => {
      const target = userPath(dir);
      if (target === resolve(config.dataDir)) throw new CliError('the backup directory must not be DATA_DIR itself');
      if (existsSync(target) && readdirSync(target).length > 0) throw new CliError(`backup directory ${target} is not empty`);
      const { copied, elsewhere } = plan(config);
      if (copied.length === 0 && elsewhere.length === 0)
        throw new CliError(`no store in DATA_DIR ${config.dataDir}: set DATA_DIR to the data directory the server uses`);
      mkdirSync(target, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
      chmodSync(target, PRIVATE_DIRECTORY_MODE);
      for (const file of copied) {
        await copyStore(join(config.dataDir, file), join(target, file));
        process.stdout.write(`${file}\n`);
      }
      if (existsSync(join(config.dataDir, KEY_FILE))) {
        copyFileSync(join(config.dataDir, KEY_FILE), join(target, KEY_FILE));
        chmodSync(join(target, KEY_FILE), PRIVATE_FILE_MODE);
        process.stdout.write(`${KEY_FILE}\n`);
      }
      for (const store of elsewhere) process.stderr.write(`not copied: ${store} lives in its server; back it up with that server's tools\n`);
    });
}
