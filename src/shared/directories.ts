import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Directories this service creates hold stores, keys and logs: for their owner only, whatever the umask. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * `mkdir -p` that fails instead of hanging: Node's recursive mkdir retries forever, at full CPU and
 * deaf to signals, where the kernel refuses to create a directory under an existing one (`/proc/nope`).
 * This creates each missing level once (0700 unless told) and throws, naming the directory, when one
 * cannot be made.
 */
export function ensureDirectory(path: string, mode = PRIVATE_DIRECTORY_MODE): void {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`cannot create directory ${directory}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  if (!statSync(target).isDirectory()) throw new Error(`${target} is not a directory`);
}
