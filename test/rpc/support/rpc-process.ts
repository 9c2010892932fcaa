import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export type LogLine = Record<string, unknown> & { event?: string; msg?: string };

/** `src/rpc/main.ts` in a child process through tsx (`npm run rpc` runs its compiled form), every stdout line parsed as JSON. */
export class RpcProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/rpc/main.ts'], {
      cwd: root,
      env: { ...process.env, RPC_HOST: '127.0.0.1', RPC_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
    createInterface({ input: this.child.stdout! }).on('line', (text) => this.take(text));
  }

  private take(text: string): void {
    const line = JSON.parse(text) as LogLine; // a line that is not JSON fails the test here
    this.lines.push(line);
    for (const waiter of this.waiters.filter((w) => w.match(line))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  }

  /** The first log line (already seen or still to come) with this event. */
  logged(event: string): Promise<LogLine> {
    const seen = this.lines.find((line) => line.event === event);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match: (line) => line.event === event, resolve }));
  }

  /** Resolves with the target once the server logs that it listens. */
  async target(): Promise<string> {
    return `127.0.0.1:${String((await this.logged('listening')).port)}`;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** For after hooks: make sure nothing outlives the test. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
