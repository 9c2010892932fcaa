import assert from 'node:assert/strict';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId, WORKER_NUMBERS, WorkerNumberUnavailableError, workerNumberOf } from '../../src/shared/ids.ts';
import { AllWorkerNumbersTakenError, ProcessWorkerNumber, workerLeaseName, type WorkerNumberLease } from '../../src/shared/worker-numbers.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const TTL = 60_000;

describe('Worker numbers leased through the shared store', () => {
  let clock: number;
  let dir: string;
  let store: SqliteReadStore;
  const leases: WorkerNumberLease[] = [];

  beforeEach(() => {
    clock = Date.now();
    dir = scratchDir();
    store = SqliteReadStore.inDataDir(dir, { now: () => clock });
  });

  afterEach(async () => {
    for (const lease of leases.splice(0)) await lease.release();
    await store.close();
  });

  /** One more "process": its own owner name and its own lease. */
  const processLeases = async () => {
    const lease = await new ProcessWorkerNumber().lease(store, { ttlMs: TTL, autoRenew: false, now: () => clock });
    leases.push(lease);
    return lease;
  };

  it('gives every process its own number, stamped on the ids it mints, and refuses a 65th until one is free', async () => {
    const numbers: number[] = [];
    for (let i = 0; i < WORKER_NUMBERS; i += 1) {
      const lease = await processLeases();
      numbers.push(lease.number);
      assert.equal(workerNumberOf(newId()), lease.number);
    }
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      [...Array(WORKER_NUMBERS).keys()],
    );
    await assert.rejects(processLeases(), (error: Error) => {
      assert.ok(error instanceof AllWorkerNumbersTakenError);
      assert.match(error.message, /^all 64 worker numbers are leased by running processes; stop one, or wait up to 60 s/);
      return true;
    });
    const leaving = leases.splice(7, 1)[0]!;
    await leaving.release();
    assert.equal((await processLeases()).number, leaving.number);
  });

  it('frees the number of a process that stopped renewing once its lease expires, and that process stops minting', async () => {
    const staleProcess = new ProcessWorkerNumber();
    const stale = await staleProcess.lease(store, { ttlMs: TTL, autoRenew: false, now: () => clock });
    for (let i = 1; i < WORKER_NUMBERS; i += 1) await processLeases();
    clock += TTL / 2;
    for (const lease of leases) await lease.renew();
    assert.equal(staleProcess.current(), stale.number, 'still within its lease');
    clock += TTL / 2;
    assert.throws(() => staleProcess.current(), WorkerNumberUnavailableError, 'no id from a lease that has run out');
    const successor = await processLeases();
    assert.equal(successor.number, stale.number);
    assert.equal(workerNumberOf(newId()), stale.number);
  });

  it('moves to a free number when another process took its own', async () => {
    const lease = await processLeases();
    assert.equal(
      await store.takeOverLease(workerLeaseName(lease.number), (await store.leaseHolder(workerLeaseName(lease.number)))!.owner, 'someone else', TTL),
      true,
    );
    await lease.renew();
    const now = workerNumberOf(newId());
    assert.notEqual(now, lease.number);
    assert.equal((await store.leaseHolder(workerLeaseName(now)))?.owner.startsWith('someone') ?? false, false);
  });

  describe('in the CLI', function () {
    this.timeout(60_000);
    const fill = async (count: number) => {
      for (let n = 0; n < count; n += 1) await store.tryLease(workerLeaseName(n), `other-host:${1000 + n}:00000000@0.0`, 10 * TTL);
    };

    it('mints account and token ids with a number no running process holds, and gives it back', async () => {
      await fill(WORKER_NUMBERS - 1);
      const free = WORKER_NUMBERS - 1;
      const created = await runCli(['account', 'create', `w${process.pid}`], { DATA_DIR: dir });
      assert.equal(created.code, 0, created.stderr);
      assert.equal(workerNumberOf(created.stdout.trim()), free);
      assert.equal(await store.leaseHolder(workerLeaseName(free)), null, 'released when the command ends');
    });

    it('refuses with one line when every number is taken', async () => {
      await fill(WORKER_NUMBERS);
      const refused = await runCli(['account', 'create', `w${process.pid}`], { DATA_DIR: dir });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: all 64 worker numbers are leased by running processes; .*\n$/);
    });
  });
});
