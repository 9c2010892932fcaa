import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

type Line = Record<string, unknown>;

/** Refused when nothing listens any more on the port. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * `npm start &` then `kill %1`: a script-run shell signals npm's pid only. npm forwards the signal to
 * the process it started; unless that process is the service itself, the service never hears it.
 */
/** Where each script's service says it listens, and how it says it stopped. */
const SCRIPTS = {
  start: { port: httpPort, stopped: (line: Line) => line.msg === 'stopped' },
  api: { port: httpPort, stopped: (line: Line) => line.msg === 'stopped' },
  projector: { port: httpPort, stopped: (line: Line) => line.msg === 'stopped' },
  rpc: { port: (line: Line) => (line.event === 'listening' ? Number(line.port) : null), stopped: (line: Line) => line.event === 'stopped' },
};

function httpPort(line: Line): number | null {
  return typeof line.url === 'string' && /listening/.test(String(line.msg)) ? Number(new URL(line.url).port) : null;
}

for (const [script, service] of Object.entries(SCRIPTS)) {
  describe(`npm run ${script}, signalled through npm's pid`, function () {
    // Only ends a hang: npm, its stale-build check and a service start can take a minute on a loaded 2-core machine.
    this.timeout(120_000);
    let npm: ChildProcess;
    let servicePid: number | undefined;

    after(() => {
      // Before the fix the service outlives npm: never leave it behind holding the port.
      if (servicePid !== undefined) {
        try {
          process.kill(servicePid, 'SIGKILL');
        } catch {
          // already gone, as it should be
        }
      }
    });

    it('stops the service and frees its port when npm gets SIGTERM', async () => {
      npm = spawn('npm', ['run', '--silent', script], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: scratchDir(), HOST: '127.0.0.1', PORT: '0', RPC_HOST: '127.0.0.1', RPC_PORT: '0', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines: Line[] = [];
      // Closes only once every process holding npm's stdout (npm, a shell, the service) has ended.
      const outputClosed = once(npm.stdout!, 'close');
      const listening = new Promise<{ line: Line; port: number }>((resolve) => {
        createInterface({ input: npm.stdout! }).on('line', (text) => {
          try {
            const line = JSON.parse(text) as Line;
            lines.push(line);
            const port = service.port(line);
            if (port !== null) resolve({ line, port });
          } catch {
            // npm's own lines
          }
        });
      });
      const { line: started, port } = await listening;
      servicePid = started.pid as number;
      assert.notEqual(servicePid, npm.pid, 'the service logs its own pid');

      npm.kill('SIGTERM');
      await outputClosed;

      assert.ok(
        lines.some((line) => service.stopped(line) && line.pid === servicePid),
        `the service shut down gracefully; its log:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
      );
      assert.equal(await connects(port), false, `port ${port} is free`);
    });
  });
}
