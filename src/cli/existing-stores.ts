import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { STORE_FILES } from '../shared/store-files.ts';
import { CliError } from './cli-error.ts';

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/**
 * Commands that only read must find the server's stores where DATA_DIR says: a wrong or missing
 * DATA_DIR would otherwise answer "nothing" and leave empty SQLite files behind.
 */
function requireFile(config: Config, file: string, what: string): void {
  const dir = config.dataDir;
  if (!isDirectory(dir)) throw new CliError(`DATA_DIR ${dir} does not exist: set DATA_DIR to the data directory the server uses`);
  if (!existsSync(join(dir, file))) {
    throw new CliError(`no ${what} in DATA_DIR ${dir} (${file} is missing): set DATA_DIR to the data directory the server uses`);
  }
}

/** The event log, unless it lives in EventStoreDB. */
export function requireEventLog(config: Config): void {
  if (!config.eventStoreUrl) requireFile(config, STORE_FILES.events.file, 'event log');
}

/** Accounts and tokens, unless they live in MongoDB. */
export function requireAccounts(config: Config): void {
  if (!config.mongodbUrl) requireFile(config, STORE_FILES.accounts.file, 'accounts');
}

/** The read models (parked events among them), unless they live in MongoDB. */
export function requireReadModels(config: Config): void {
  if (!config.mongodbUrl) requireFile(config, STORE_FILES.readModels.file, 'read models');
}
