import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server.ts';

const run = promisify(execFile);

/** Debian's PostgreSQL binaries (postgresql-<major>), the newest installed; null when there are none. */
export const PG_BIN: string | null = (() => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], 'bin') : null;
})();

/**
 * A PostgreSQL cluster of the test's own on a free port, in a scratch directory, trust on loopback: a
 * test may stop and start it without touching the machine's shared server. initdb refuses root, so as
 * root the cluster belongs to the `postgres` user.
 */
export class OwnPostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly asPostgres: boolean,
  ) {}

  static async start(): Promise<OwnPostgres> {
    if (!PG_BIN) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)');
    const dir = mkdtempSync(join(tmpdir(), 'own-postgres-'));
    const asPostgres = userInfo().uid === 0;
    if (asPostgres) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout), Number(gid));
    }
    chmodSync(dir, 0o700);
    const cluster = new OwnPostgres(dir, await freePort(), asPostgres);
    await cluster.tool('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await cluster.resume();
    return cluster;
  }

  get adminUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Starts (again) and waits until it accepts connections (`pg_ctl -w`). */
  async resume(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await this.tool('pg_ctl', ['-D', join(this.dir, 'data'), '-o', options, '-l', join(this.dir, 'log'), '-w', '-t', '120', 'start']);
  }

  /** Stops as an outage would: `immediate` cuts every connection without a checkpoint. */
  async stop(mode: 'fast' | 'immediate' = 'immediate'): Promise<void> {
    await this.tool('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', '-t', '120', 'stop']);
  }

  async remove(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async tool(name: string, args: string[]): Promise<void> {
    const binary = join(PG_BIN!, name);
    if (this.asPostgres) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
    else await run(binary, args);
  }
}
