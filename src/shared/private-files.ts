import { chmodSync, closeSync, constants, existsSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PRIVATE_DIRECTORY_MODE } from './directories.ts';
import type { Logger } from './logger.ts';

/** Stores, their WAL and shared-memory files, exports and backups: readable by their owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `path` empty with mode 0600 unless it exists. SQLite creates a new database file 0644 (less the
 * umask) and gives its -wal and -shm files the database file's own mode, so a store created through this
 * first keeps all three private; an empty file is a valid new database.
 */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

export interface Tightened {
  /** `<name> 0755->0700` per file or directory whose mode was narrowed. */
  readonly changed: readonly string[];
  /** `<name>: <error>` per entry that could not be narrowed (another owner's file). */
  readonly failed: readonly string[];
}

/**
 * Narrows DATA_DIR to 0700 and each file directly in it (stores, -wal, -shm, the webmail key) to 0600,
 * for data directories written by builds that left them to the umask. Subdirectories keep their modes
 * (the webmail's logs are 0640 on purpose, for log readers of the group): the 0700 directory already
 * keeps every other user out of them. Symbolic links are left alone, and their targets too.
 */
export function tightenDataDir(dir: string): Tightened {
  const changed: string[] = [];
  const failed: string[] = [];
  const record = (name: string, outcome: Narrowed) => {
    if (outcome.kind === 'changed') changed.push(`${name} ${octal(outcome.from)}->${octal(outcome.to)}`);
    else if (outcome.kind === 'failed') failed.push(`${name}: ${outcome.error}`);
  };
  record(basename(dir) || dir, narrowMode(dir, PRIVATE_DIRECTORY_MODE));
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) record(entry.name, narrowMode(join(dir, entry.name), PRIVATE_FILE_MODE));
  }
  return { changed, failed };
}

export type Narrowed =
  | { readonly kind: 'tight' | 'gone' }
  | { readonly kind: 'changed'; readonly from: number; readonly to: number }
  | { readonly kind: 'failed'; readonly error: string };

const isGone = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Clears the bits of `path`'s mode outside `wanted`. A file that is gone by then counts as nothing to do:
 * another process on the same DATA_DIR (a second API process, the projector) creates and deletes
 * SQLite's -journal files between our listing and our lstat, and that must not stop this process's start.
 */
export function narrowMode(path: string, wanted: number): Narrowed {
  let mode: number;
  try {
    mode = lstatSync(path).mode & 0o777;
  } catch (error) {
    if (isGone(error)) return { kind: 'gone' };
    throw error;
  }
  if ((mode & ~wanted) === 0) return { kind: 'tight' };
  const next = mode & wanted;
  try {
    chmodSync(path, next);
    return { kind: 'changed', from: mode, to: next };
  } catch (error) {
    if (isGone(error)) return { kind: 'gone' };
    return { kind: 'failed', error: (error as Error).message };
  }
}

/** At a process's start: tightens an existing DATA_DIR and says so in one log line (nothing when already tight). */
export function tightenDataDirAtStart(dir: string, logger: Logger): void {
  if (!existsSync(dir)) return;
  const { changed, failed } = tightenDataDir(dir);
  if (changed.length > 0) {
    logger.warn({ event: 'data-dir-tightened', dataDir: dir, changed }, `data directory was readable by other users: tightened ${changed.join(', ')}`);
  }
  if (failed.length > 0)
    logger.warn({ event: 'data-dir-not-tightened', dataDir: dir, failed }, `could not tighten in the data directory: ${failed.join('; ')}`);
}
