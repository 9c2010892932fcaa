import type { Config } from '../config.ts';
import { leaseWorkerNumber } from '../shared/worker-numbers.ts';
import { openReadStore } from '../stores.ts';

/**
 * Runs `work`, which mints ids (new accounts, new tokens), while this CLI process holds a worker number
 * leased from the store every server process shares, so its ids can never equal a running server's.
 */
export async function withWorkerNumber<T>(config: Config, work: () => Promise<T>): Promise<T> {
  const reads = await openReadStore(config);
  try {
    const lease = await leaseWorkerNumber(reads);
    try {
      return await work();
    } finally {
      await lease.release();
    }
  } finally {
    await reads.close();
  }
}
