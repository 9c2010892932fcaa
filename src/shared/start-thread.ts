import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running `./<name>.js` beside `besideUrl` (the caller's import.meta.url), or `./<name>.ts`
 * under tsx: the thread runs the same kind of file as its caller, JavaScript from dist/ or TypeScript.
 */
export function startThreadBeside(besideUrl: string, name: string, workerData: unknown, options: Omit<WorkerOptions, 'eval' | 'workerData'> = {}): Worker {
  if (extname(fileURLToPath(besideUrl)) !== '.ts') return new Worker(new URL(`./${name}.js`, besideUrl), { ...options, workerData });
  // Node 20's tsx registers its hooks in the main thread only, later ones in workers too: the thread tries
  // without, and registers tsx (found from the working directory, as `--import tsx` was) when it must:
  // when Node refuses .ts (Node 20), or strips types natively and meets syntax it cannot strip (Node 22.18+
  // and 24: parameter properties).
  const thread = JSON.stringify(new URL(`./${name}.ts`, besideUrl).href);
  const boot = `import(${thread}).catch((error) => {
    if (error?.code !== 'ERR_UNKNOWN_FILE_EXTENSION' && error?.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw error;
    return import('tsx/esm/api').then(({ register }) => (register(), import(${thread} + '?tsx')));
  });`;
  return new Worker(boot, { ...options, eval: true, workerData });
}
