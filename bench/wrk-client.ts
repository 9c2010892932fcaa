/**
 * The HTTP load client: wrk (C, its own process, so it never shares a process with a server under
 * test), one thread, a fixed number of connections, latency percentiles from its --latency report.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface WrkRun {
  readonly url: string;
  readonly script: 'wrk-static.lua' | 'wrk-add-keyword.lua' | 'wrk-post-many.lua' | 'wrk-retitle.lua' | 'wrk-post-delete.lua';
  readonly args: readonly string[];
  readonly seconds: number;
  readonly connections: number;
}

const WRK = process.env.WRK ?? '/usr/bin/wrk';
const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(report: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(report);
  if (!match) throw new Error(`wrk reported no ${percentile}% latency:\n${report}`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** Parses wrk's report; a run with non-2xx answers or socket errors is refused, not counted. */
export function parseWrk(report: string): WrkResult {
  const refused = /Non-2xx or 3xx responses: (\d+)/.exec(report);
  if (refused) {
    const first = /^First refusal: (.*)$/m.exec(report)?.[1] ?? 'not recorded by this script';
    throw new Error(`FAILED: ${refused[1]} answers were not 2xx (the first: ${first}), so the run did not measure the work it names:\n${report}`);
  }
  const broken = /Socket errors: .*/.exec(report);
  if (broken) throw new Error(`FAILED: wrk saw socket errors:\n${report}`);
  const rate = /^Requests\/sec:\s+([\d.]+)/m.exec(report);
  if (!rate) throw new Error(`wrk reported no rate:\n${report}`);
  return { requestsPerSecond: Number(rate[1]), p50Ms: latencyMs(report, '50'), p99Ms: latencyMs(report, '99') };
}

export function runWrk(run: WrkRun): Promise<WrkResult> {
  const script = fileURLToPath(new URL(`./${run.script}`, import.meta.url));
  const argv = ['-t1', `-c${run.connections}`, `-d${run.seconds}s`, '--latency', '--timeout', '10s', '-s', script, run.url, '--', ...run.args];
  return new Promise((resolve, reject) => {
    execFile(WRK, argv, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      else {
        try {
          resolve(parseWrk(stdout));
        } catch (parseError) {
          reject(parseError instanceof Error ? parseError : new Error(String(parseError)));
        }
      }
    });
  });
}
