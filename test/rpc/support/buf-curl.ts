import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type BufResult = { readonly exitCode: number; readonly stdout: string; readonly stderr: string };

/** The buf binary shipped in npm's @bufbuild/buf, or why it cannot be used here. */
export function findBuf(): { path: string } | { missing: string } {
  try {
    const path = join(dirname(createRequire(import.meta.url).resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
    return existsSync(path) ? { path } : { missing: `${path} does not exist` };
  } catch (error) {
    return { missing: `@bufbuild/buf is not installed (${(error as Error).message})` };
  }
}

/** `buf curl` over h2c against target; the schema always comes from server reflection. */
export function bufCurl(buf: string, target: string, args: readonly string[], stdin?: string): Promise<BufResult> {
  return new Promise((resolve) => {
    const child = execFile(
      buf,
      ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args.map((a) => a.replace('{url}', `http://${target}`))],
      { timeout: 15_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ exitCode: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** buf curl prints each response as its own pretty JSON document; these tests' payloads hold no braces. */
export function jsonDocuments(stdout: string): unknown[] {
  const trimmed = stdout.trim();
  return trimmed === '' ? [] : (JSON.parse(`[${trimmed.replace(/}\s*{/g, '},{')}]`) as unknown[]);
}
