import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A child process running `./<name>.js` beside `besideUrl` (the caller's import.meta.url), or `./<name>.ts`
 * under tsx (registered with `--import tsx`, found from the working directory as the caller's was): the
 * child runs the same kind of file as its caller. `nodeOptions` are the child's own Node flags (a heap
 * limit, say); the parent's are not passed on. Messages use V8's serialization, so Buffers and Dates
 * cross intact.
 */
export function startProcessBeside(
  besideUrl: string,
  name: string,
  nodeOptions: readonly string[],
  options: Omit<ForkOptions, 'execArgv' | 'serialization'> = {},
): ChildProcess {
  const typescript = extname(fileURLToPath(besideUrl)) === '.ts';
  const file = fileURLToPath(new URL(`./${name}.${typescript ? 'ts' : 'js'}`, besideUrl));
  return fork(file, [], { ...options, execArgv: [...nodeOptions, ...(typescript ? ['--import', 'tsx'] : [])], serialization: 'advanced' });
}
