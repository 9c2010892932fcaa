import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LoadResult } from './h2-load-client.ts';

const run = promisify(execFile);

/** Whether Debian's nghttp2-client is installed; the bench then drives unary calls with it. */
export async function h2loadAvailable(): Promise<boolean> {
  try {
    await run('h2load', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Unary Echo load from h2load (C, nghttp2): cheaper per call than any Node client, so on a 2-core
 * machine more of the CPU goes to the server under test. h2load counts HTTP responses, not
 * grpc-status; the bench checks statuses with its own client during warm-up.
 */
export async function h2loadUnary(target: string, seconds: number, concurrency: number, frame: number[]): Promise<LoadResult> {
  const body = join(tmpdir(), `rpc-bench-echo-${process.pid}.bin`);
  writeFileSync(body, Buffer.from(frame));
  const { stdout } = await run('h2load', [
    '-c',
    '1',
    '-m',
    String(concurrency),
    '-D',
    String(seconds),
    '-H',
    'content-type: application/grpc',
    '-H',
    'te: trailers',
    '-d',
    body,
    `http://${target}/test_service.TestService/Echo`,
  ]);
  const finished = /finished in ([\d.]+)s/.exec(stdout);
  const counts = /(\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
  if (!finished || !counts) throw new Error(`unexpected h2load output:\n${stdout}`);
  const [succeeded, failed, errored, timedOut] = counts.slice(1).map(Number) as [number, number, number, number];
  return { operations: succeeded, seconds: Number(finished[1]), failures: failed + errored + timedOut };
}
