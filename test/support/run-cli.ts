import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  /** The exit code; a process ended by a signal counts as 1. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in the project root with `env` on top of this process's, feeding it `stdin`. */
export function runCommand(command: string, args: readonly string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * The content-filters CLI from its TypeScript source (through tsx, so tests need no build), in the
 * project root. The compiled CLI, as `npm run cli` and the `content-filters` command run it, is
 * tested in test/process/compiled-start.spec.ts.
 */
export function runCli(args: readonly string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return runCommand(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], env, stdin);
}
