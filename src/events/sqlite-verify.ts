import { availableParallelism } from 'node:os';
import { verifyChains, type VerifyOutcome } from './chain-verify.ts';
import type { ChainHead } from './event-chain.ts';
import { SqliteChainSource } from './sqlite-chain-source.ts';
import { startThread } from './sqlite-writer.ts';

/** What one thread of a split walk is given. */
export interface VerifyPart {
  readonly path: string;
  readonly after: bigint;
  readonly through: bigint | null;
  readonly expect: ChainHead | null;
}

export interface SplitOptions {
  /** At most this many threads (default: the cores, up to 4). */
  readonly threads?: number;
  /** Below this many events per thread the walk stays in this thread (starting threads costs more). */
  readonly minEventsPerThread?: number;
}

/**
 * `verify` of events.sqlite: its chains (below), then its account index against the log it was built
 * from. The index is not hashed; what the chains prove of the log proves it, by recomputing it.
 */
export async function verifySqliteLog(path: string, expect: ChainHead | null, options: SplitOptions = {}): Promise<VerifyOutcome> {
  const outcome = await verifyLogChains(path, expect, options);
  if (!outcome.ok) return outcome;
  const source = new SqliteChainSource(path);
  try {
    const mismatch = source.accountIndexMismatch();
    return mismatch === null ? outcome : { ok: false, events: outcome.events, ...mismatch };
  } finally {
    source.close();
  }
}

/**
 * The chains of events.sqlite, split over threads: each event's row holds everything its check needs (its
 * content, the stream's previous hash, its log link, and the link before it), so stretches of the log are
 * checked apart, each thread with its own read connection, and the first failure of the first stretch
 * that fails is the first of the log. The event loop of the calling process stays free meanwhile.
 */
async function verifyLogChains(path: string, expect: ChainHead | null, options: SplitOptions): Promise<VerifyOutcome> {
  const { threads = Math.min(4, availableParallelism()), minEventsPerThread = 200_000 } = options;
  const source = new SqliteChainSource(path);
  let points: readonly bigint[];
  try {
    const split = source.splitPoints(Math.max(1, Math.min(threads, Math.floor(source.splitPoints(1).events / minEventsPerThread))));
    points = split.points;
    if (points.length === 0) return await verifyChains(source, expect);
  } finally {
    source.close();
  }
  const bounds = [0n, ...points];
  const parts = bounds.map((after, i): VerifyPart => {
    const through = points[i] ?? null;
    // The expected head belongs to the stretch that holds its position, or to the last one past the end.
    const holds = expect !== null && expect.position > after && (through === null || expect.position <= through);
    return { path, after, through, expect: holds ? expect : null };
  });
  const outcomes = await Promise.all(parts.map(runPart));
  const failed = outcomes.findIndex((outcome) => !outcome.ok);
  // Events checked before the first failure, as one walk would count them.
  const events = outcomes.slice(0, failed < 0 ? outcomes.length : failed + 1).reduce((sum, outcome) => sum + outcome.events, 0);
  if (failed >= 0) return { ...outcomes[failed]!, events };
  const heads = outcomes.map((outcome) => (outcome.ok ? outcome.head : null)).filter((head) => head !== null);
  return { ok: true, events, head: heads.at(-1) ?? null, sealedThrough: null };
}

function runPart(part: VerifyPart): Promise<VerifyOutcome> {
  return new Promise((resolve, reject) => {
    const worker = startThread('sqlite-verify-thread', part);
    worker.once('message', (message: VerifyOutcome | { failed: string }) => {
      void worker.terminate();
      if ('failed' in message) reject(new Error(`verify: ${message.failed}`));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}
