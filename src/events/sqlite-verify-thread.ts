import { parentPort, workerData } from 'node:worker_threads';
import { verifyChains } from './chain-verify.ts';
import { SqliteChainSource } from './sqlite-chain-source.ts';
import type { VerifyPart } from './sqlite-verify.ts';

/** One stretch of a split `verify` of events.sqlite (sqlite-verify.ts), on its own read connection. */
const { path, after, through, expect } = workerData as VerifyPart;
const source = new SqliteChainSource(path, { after, through });
try {
  const link = after === 0n ? null : source.linkAt(after);
  const start = link === null ? null : { position: after, hash: link };
  parentPort!.postMessage(await verifyChains(source, expect, start));
} catch (error) {
  parentPort!.postMessage({ failed: error instanceof Error ? error.message : String(error) });
} finally {
  source.close();
}
