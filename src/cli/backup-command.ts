import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import type { Config } from '../config.ts';
import { userPath } from './user-path.ts';
import { CliError } from './cli-error.ts';

/**
 * The embedded stores, in the order they are copied. The read models go before the event log: each copy
 * is a snapshot of its own file, so copied in this order the read models' checkpoint never names an event
 * the copied log lacks (the projector catches up on the rest after a restore), whereas the other order
 * could leave a checkpoint past the log's end, and events appended after the restore would be skipped.
 */
const STORES: readonly { readonly file: string; readonly movedBy?: 'EVENTSTORE_URL' | 'MONGODB_URL' }[] = [
  { file: 'read-models.sqlite', movedBy: 'MONGODB_URL' },
  { file: 'events.sqlite', movedBy: 'EVENTSTORE_URL' },
  { file: 'accounts.sqlite', movedBy: 'MONGODB_URL' },
  { file: 'webmail-sessions.sqlite', movedBy: 'MONGODB_URL' },
  { file: 'mail.sqlite', movedBy: 'MONGODB_URL' },
];

/** Where each store lives under the settings: copied here, or left to its server's own tools. */
function plan(config: Config): { copied: string[]; elsewhere: string[] } {
  const copied: string[] = [];
  const elsewhere: string[] = [];
  for (const { file, movedBy } of STORES) {
    const moved = movedBy === 'EVENTSTORE_URL' ? config.eventStoreUrl : movedBy === 'MONGODB_URL' ? config.mongodbUrl : undefined;
    if (moved !== undefined) elsewhere.push(`${file.replace('.sqlite', '')} (${movedBy})`);
    else if (existsSync(join(config.dataDir, file))) copied.push(file);
  }
  return { copied, elsewhere };
}

/** A consistent copy of one SQLite file through SQLite's online backup, while others keep writing to it. */
async function copyStore(from: string, to: string): Promise<void> {
  const db = new Database(from, { fileMustExist: true, timeout: 5000 });
  try {
    // Written under a temporary name: a backup cut short never looks like a complete one.
    await db.backup(`${to}.partial`);
    renameSync(`${to}.partial`, to);
  } finally {
    db.close();
  }
}

/** `backup <dir>`: an online copy of every embedded store into an empty (or new) directory. */
export function backupCommand(config: Config): Command {
  return new Command('backup')
    .description('Copy every SQLite store of DATA_DIR into <dir> while the service runs; restore by starting with DATA_DIR=<a copy of dir>.')
    .argument('<dir>', 'an empty or missing directory to write the copies to')
    .action(async (dir: string) => {
      const target = userPath(dir);
      if (target === resolve(config.dataDir)) throw new CliError('the backup directory must not be DATA_DIR itself');
      if (existsSync(target) && readdirSync(target).length > 0) throw new CliError(`backup directory ${target} is not empty`);
      const { copied, elsewhere } = plan(config);
      if (copied.length === 0 && elsewhere.length === 0)
        throw new CliError(`no store in DATA_DIR ${config.dataDir}: set DATA_DIR to the data directory the server uses`);
      mkdirSync(target, { recursive: true, mode: 0o700 });
      for (const file of copied) {
        await copyStore(join(config.dataDir, file), join(target, file));
        process.stdout.write(`${file}\n`);
      }
      for (const store of elsewhere) process.stderr.write(`not copied: ${store} lives in its server; back it up with that server's tools\n`);
    });
}
