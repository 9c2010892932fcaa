import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './configured-nats-server.ts';
import { scratchDir } from './scratch-dir.ts';
import { waitUntil } from './wait-until.ts';

const MASTODON_DOC = fileURLToPath(new URL('../../docs/mastodon.md', import.meta.url));

/** Why nginx tests cannot run here, or null (Debian's nginx-light or nginx; .ci/run installs it). */
export const nginxMissing = (): string | null => (spawnSync('nginx', ['-v']).error ? 'no nginx binary (apt-get install nginx-light)' : null);

/** The recipe's `location` blocks as docs/mastodon.md shows them: its one ```nginx block, so the test runs what operators copy. */
export function documentedLocations(): string {
  const blocks = [...readFileSync(MASTODON_DOC, 'utf8').matchAll(/^```nginx\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`docs/mastodon.md holds ${blocks.length} nginx blocks, expected one`);
  return blocks[0]![1]!;
}

/**
 * Debian's nginx in the foreground on a free loopback port, everything of it (pid, logs, temp files)
 * in a directory of its own: the documented locations, the `content_filters` upstream the docs name,
 * and a `location /` standing for Mastodon's own, to `mastodonPort`.
 */
export class NginxProxy {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly errorLog: string,
  ) {}

  static async start(servicePort: number, mastodonPort: number): Promise<NginxProxy> {
    const dir = scratchDir();
    for (const sub of ['logs', 'tmp']) mkdirSync(join(dir, sub));
    const port = await freePort();
    const tmp = join(dir, 'tmp');
    const config = `
daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'logs', 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${tmp}/body; proxy_temp_path ${tmp}/proxy; fastcgi_temp_path ${tmp}/fastcgi;
  uwsgi_temp_path ${tmp}/uwsgi; scgi_temp_path ${tmp}/scgi;
  upstream content_filters { server 127.0.0.1:${servicePort}; keepalive 4; }
  upstream mastodon { server 127.0.0.1:${mastodonPort}; }
  server {
    listen 127.0.0.1:${port};
${documentedLocations()}
    location / { proxy_pass http://mastodon; proxy_set_header Host $host; }
  }
}
`;
    const file = join(dir, 'nginx.conf');
    writeFileSync(file, config);
    const child = spawn('nginx', ['-p', dir, '-c', file, '-e', join(dir, 'logs', 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const proxy = new NginxProxy(child, port, join(dir, 'logs', 'error.log'));
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`nginx ended (${child.exitCode}): ${stderr}`);
      return fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
    }, 'nginx listening');
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const ended = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await ended;
  }
}
