import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;
const running = new Set<ChildProcess>();

// A failing test must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

type LogLine = Record<string, unknown> & { msg?: string };

/** A `node --import tsx <script>` child whose JSON log lines can be awaited. */
export class NodeProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  private constructor(private readonly child: ChildProcess) {
    running.add(child);
    this.exited = once(child, 'exit').then(([code]) => {
      running.delete(child);
      return code as number | null;
    });
    createInterface({ input: child.stdout! }).on('line', (text) => {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { msg: text };
      }
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => this.lines.push({ msg: `stderr: ${chunk.toString()}` }));
  }

  /** Starts a script from the project root with the given environment on top of this one. */
  static start(script: string, env: Record<string, string>): NodeProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new NodeProcess(child);
  }

  /** Resolves with the first log line (already seen or still to come) that matches. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching log line in ${timeoutMs} ms; got:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}`)), timeoutMs);
      this.waiters.push({ match, resolve: (line) => (clearTimeout(timer), resolve(line)) });
    });
  }

  /** The URL from the process's "listening" log line. */
  async url(): Promise<string> {
    const line = await this.waitForLog((l) => typeof l.url === 'string' && /listening/.test(String(l.msg)));
    return line.url as string;
  }

  kill(signal: NodeJS.Signals): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npm run cli -- ...` the way an operator would, without npm's own start-up. */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
