import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;
const running = new Set<NodeProcess>();

// A failing test must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.signal('SIGKILL');
});

type LogLine = Record<string, unknown> & { msg?: string };

/**
 * A `node --import tsx <script>` child, or an `npm run` one, whose JSON log lines can be awaited. An npm
 * child gets a process group of its own, so that signals reach the node process npm starts.
 */
export class NodeProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly group: boolean,
  ) {
    running.add(this);
    this.exited = once(child, 'exit').then(([code]) => {
      running.delete(this);
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

  /**
   * Starts a script from the project root with the given environment on top of this one; `via` is put
   * before the command (a test host's `ip netns exec <name>`, which execs node: signals still reach it).
   */
  static start(script: string, env: Record<string, string>, via: readonly string[] = []): NodeProcess {
    const command = [...via, process.execPath, '--import', 'tsx', script];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new NodeProcess(child, false);
  }

  /** `npm <args>` (e.g. `start`) from the project root, as a user types it. */
  static npm(args: readonly string[], env: Record<string, string>): NodeProcess {
    const child = spawn('npm', args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    return new NodeProcess(child, true);
  }

  /**
   * Resolves with the first log line (already seen or still to come) that matches. The limit only ends a
   * hang: a cold `node --import tsx` start on a loaded 2-core machine can take well over 20 s.
   */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs = 90_000): Promise<LogLine> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching log line in ${timeoutMs} ms; got:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}`)),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (line) => (clearTimeout(timer), resolve(line)) });
    });
  }

  /** The URL from the process's "listening" log line. */
  async url(): Promise<string> {
    const line = await this.waitForLog((l) => typeof l.url === 'string' && /listening/.test(String(l.msg)));
    return line.url as string;
  }

  kill(signal: NodeJS.Signals): Promise<number | null> {
    this.signal(signal);
    return this.exited;
  }

  /** Sends a signal without waiting; to the whole group for an npm child. */
  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (!this.group) {
      this.child.kill(signal);
      return;
    }
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // the group is gone already
    }
  }
}
