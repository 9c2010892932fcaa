import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module at `thread` (its `.ts` URL beside the caller): the `.js` beside it
 * when this build runs from dist/, the `.ts` under tsx otherwise.
 */
export function startThread(thread: URL, workerData: unknown): Worker {
  if (extname(fileURLToPath(import.meta.url)) !== '.ts') return new Worker(new URL(thread.href.replace(/\.ts$/, '.js')), { workerData });
  // Node 20's tsx registers its hooks in the main thread only, later ones in workers too: the thread tries
  // without, and registers tsx (found from the working directory, as `--import tsx` was) when it must:
  // when Node refuses .ts (Node 20), or strips types natively and meets syntax it cannot strip (Node 22.18+
  // and 24: parameter properties).
  const href = JSON.stringify(thread.href);
  const boot = `import(${href}).catch((error) => {
    if (error?.code !== 'ERR_UNKNOWN_FILE_EXTENSION' && error?.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw error;
    return import('tsx/esm/api').then(({ register }) => (register(), import(${href} + '?tsx')));
  });`;
  return new Worker(boot, { eval: true, workerData });
}
