import { randomInt } from 'node:crypto';
import { mintIdsWith, WORKER_NUMBERS, WorkerNumberUnavailableError, type WorkerNumberSource } from './ids.ts';
import type { Leases } from './leases.ts';
import { silentLogger, type Logger } from './logger.ts';
import { isDeadPredecessor, newOwner } from './process-identity.ts';

/** Long, so a busy event loop never outlasts it; a crashed process's number is free again after it. */
export const WORKER_LEASE_MS = 60_000;
/** Ids are minted only while the lease has at least this share of its time left, as for the projector. */
const SAFETY_MARGIN = 0.2;

export const workerLeaseName = (n: number) => `worker-number:${n}`;
const leaseName = workerLeaseName;

export class AllWorkerNumbersTakenError extends Error {
  override readonly name = 'AllWorkerNumbersTakenError';
}

export interface WorkerNumberOptions {
  readonly ttlMs?: number;
  readonly logger?: Logger;
  /** False: no renewal timer; the caller (a test) calls `renew()` itself. */
  readonly autoRenew?: boolean;
  readonly now?: () => number;
}

export interface WorkerNumberLease {
  readonly number: number;
  /** Renews the lease now; the timer does this every third of its duration. */
  renew(): Promise<void>;
  /** Gives the number back (when no other store of this process holds it): do this before closing the store. */
  release(): Promise<void>;
}

interface Holding {
  readonly store: Leases;
  validUntil: number;
}

/**
 * This process's worker number, leased through the shared store (one lease row per number, like the
 * projector lease). One number serves the whole process: every store this process opens leases the same
 * one (tests run several services in one process). A lease that cannot be renewed stops the minting of
 * ids (writes then answer 503) until a number is held again; a lease another process took is replaced
 * by a free number. Exported for tests, which play several processes; the process uses one instance.
 */
export class ProcessWorkerNumber implements WorkerNumberSource {
  private readonly owner = newOwner();
  private number: number | null = null;
  private readonly holdings = new Set<Holding>();
  private timer: NodeJS.Timeout | undefined;
  private ttlMs = WORKER_LEASE_MS;
  private now: () => number = Date.now;
  private logger: Logger = silentLogger;

  current(): number {
    const now = this.now();
    if (this.number === null || this.holdings.size === 0 || [...this.holdings].some((h) => now >= h.validUntil)) {
      throw new WorkerNumberUnavailableError('the worker number lease of this process could not be renewed; no ids can be minted until it is');
    }
    return this.number;
  }

  async lease(store: Leases, options: WorkerNumberOptions): Promise<WorkerNumberLease> {
    this.ttlMs = options.ttlMs ?? this.ttlMs;
    this.now = options.now ?? this.now;
    this.logger = options.logger ?? this.logger;
    const askedAt = this.now();
    if (this.number === null) this.number = await this.pickFree(store);
    else if (!(await this.take(store, this.number))) {
      throw new WorkerNumberUnavailableError(`worker number ${this.number}, which this process mints ids with, is held by another process in this store`);
    }
    const holding: Holding = { store, validUntil: this.validFrom(askedAt) };
    this.holdings.add(holding);
    mintIdsWith(this);
    if (options.autoRenew !== false && !this.timer) {
      this.timer = setInterval(() => void this.renew(), Math.floor(this.ttlMs / 3));
      this.timer.unref();
    }
    const number = this.number;
    return { number, renew: () => this.renew(), release: () => this.release(holding) };
  }

  async renew(): Promise<void> {
    for (const holding of this.holdings) {
      const askedAt = this.now();
      try {
        if (this.number !== null && (await holding.store.tryLease(leaseName(this.number), this.owner, this.ttlMs))) {
          holding.validUntil = this.validFrom(askedAt);
          continue;
        }
        holding.validUntil = 0;
        this.logger.error({ workerNumber: this.number }, "another process holds this process's worker number; choosing another");
        if (this.holdings.size === 1) {
          this.number = await this.pickFree(holding.store);
          holding.validUntil = this.validFrom(askedAt);
          this.logger.info({ workerNumber: this.number }, 'worker number leased');
        }
      } catch (error) {
        this.logger.error({ err: error, workerNumber: this.number }, 'could not renew the worker number lease');
      }
    }
  }

  private async release(holding: Holding): Promise<void> {
    if (!this.holdings.delete(holding)) return;
    if (this.holdings.size > 0 || this.number === null) return;
    clearInterval(this.timer);
    this.timer = undefined;
    const number = this.number;
    this.number = null;
    mintIdsWith(null);
    await holding.store.releaseLease(leaseName(number), this.owner);
  }

  private validFrom(askedAt: number): number {
    return askedAt + this.ttlMs * (1 - SAFETY_MARGIN);
  }

  private async take(store: Leases, n: number): Promise<boolean> {
    if (await store.tryLease(leaseName(n), this.owner, this.ttlMs)) return true;
    const holder = await store.leaseHolder(leaseName(n));
    return holder !== null && isDeadPredecessor(holder.owner) && store.takeOverLease(leaseName(n), holder.owner, this.owner, this.ttlMs);
  }

  /** A free number, tried in random order so that processes starting together rarely meet. */
  private async pickFree(store: Leases): Promise<number> {
    const start = randomInt(0, WORKER_NUMBERS);
    for (let i = 0; i < WORKER_NUMBERS; i += 1) {
      const n = (start + i) % WORKER_NUMBERS;
      if (await this.take(store, n)) return n;
    }
    throw new AllWorkerNumbersTakenError(
      `all ${WORKER_NUMBERS} worker numbers are leased by running processes; stop one, or wait up to ${this.ttlMs / 1000} s for a crashed one's lease to expire`,
    );
  }
}

const processWorkerNumber = new ProcessWorkerNumber();

/** Leases this process's worker number in `store` (the read store every process shares) before ids are minted. */
export function leaseWorkerNumber(store: Leases, options: WorkerNumberOptions = {}): Promise<WorkerNumberLease> {
  return processWorkerNumber.lease(store, options);
}
