import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` that fails instead of hanging: Node's recursive mkdir retries forever, at full CPU and
 * deaf to signals, where the kernel refuses to create a directory under an existing one (`/proc/nope`).
 * This creates each missing level once and throws, naming the directory, when one cannot be made.
 */
export function ensureDirectory(path: string): void {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`cannot create directory ${directory}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  if (!statSync(target).isDirectory()) throw new Error(`${target} is not a directory`);
}
