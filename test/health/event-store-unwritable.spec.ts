import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { holdWriteLock } from '../support/sqlite-lock-holder.ts';
import { mountTinyDisk, type TinyDisk } from '../support/tiny-disk.ts';
import { waitUntil } from '../support/wait-until.ts';

interface Health {
  readonly status: string;
  readonly eventStore: string;
  readonly problems: readonly { reason: string; error?: string }[];
}

// Rate limits off: the reads below run as fast as they are answered, for as long as a write waits.
const serviceOn = (dataDir: string) =>
  startService({ config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });

async function postFilter(service: RunningService, owner: Owner, title: string) {
  const response = await fetch(`${service.url}/api/v2/filters`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(newFilter(title)),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as unknown };
}

async function health(service: RunningService): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${service.url}/health`);
  return { status: response.status, body: (await response.json()) as Health };
}

function assertUnwritable(answer: { status: number; body: Health }, cause: RegExp): void {
  assert.equal(answer.status, 503);
  assert.equal(answer.body.eventStore, 'down');
  const problem = answer.body.problems.find((p) => p.reason === 'event_store_unwritable');
  assert.ok(problem, JSON.stringify(answer.body.problems));
  assert.match(problem.error!, cause);
}

const REFUSED = { error: 'Service unavailable: the event store cannot be reached' };

describe('event store locked by another process (BEGIN IMMEDIATE on events.sqlite)', function () {
  this.timeout(120_000);
  let dir: string;
  let service: RunningService;
  let writer: Owner;
  let reader: Owner;

  before(async () => {
    dir = scratchDir();
    service = await serviceOn(dir);
    [writer, reader] = [await newOwner(dir), await newOwner(dir)];
    assert.equal((await postFilter(service, writer, 'before the lock')).status, 200);
    assert.equal((await postFilter(service, reader, 'to be read')).status, 200);
  });
  after(() => service?.close());

  it('answers writes 503 with Retry-After, keeps serving other accounts, says so in /health, and recovers', async () => {
    const lock = await holdWriteLock(join(dir, 'events.sqlite'));
    try {
      let settled = false;
      const refused = postFilter(service, writer, 'while locked').finally(() => (settled = true));
      // Reads of another account go on while the write waits for the lock (5 s, in the writer thread).
      const readsMs: number[] = [];
      while (!settled) {
        const started = performance.now();
        const read = await filtersApi(service.url, reader.token).get('/api/v2/filters');
        if (!settled) readsMs.push(performance.now() - started);
        assert.equal(read.status, 200);
        assert.deepEqual(
          read.body.map((f: { title: string }) => f.title),
          ['to be read'],
        );
      }
      assert.ok(readsMs.length >= 3, `only ${readsMs.length} reads were answered while the write waited`);
      console.log(`      ${readsMs.length} GETs of another account answered while the POST waited; slowest ${Math.max(...readsMs).toFixed(1)} ms`);
      assert.deepEqual(await refused, { status: 503, retryAfter: '5', body: REFUSED });
      assertUnwritable(await health(service), /locked|busy/i);
    } finally {
      await lock.release();
    }
    await waitUntil(async () => (await health(service)).status === 200, '/health ok once the lock is released');
    assert.equal((await postFilter(service, writer, 'after the lock')).status, 200);
  });
});

describe('event store on a full disk (a tmpfs filled to the last byte)', function () {
  this.timeout(120_000);
  let disk: TinyDisk | null = null;
  let service: RunningService;
  let writer: Owner;
  let reader: Owner;
  let unusedToken: string;

  before(async function () {
    try {
      disk = mountTinyDisk(16);
    } catch (error) {
      console.log(`      skipped: ${(error as Error).message}`);
      this.skip();
    }
    service = await serviceOn(disk.dir);
    [writer, reader] = [await newOwner(disk.dir), await newOwner(disk.dir)];
    assert.equal((await postFilter(service, writer, 'before the disk filled')).status, 200);
    assert.equal((await postFilter(service, reader, 'to be read')).status, 200);
    // A token never used yet: its first use writes its last-use time, which the full disk refuses.
    const accounts = SqliteAccountStore.inDataDir(disk.dir);
    unusedToken = await accounts.createToken(reader.accountId, ['read:filters']);
    await accounts.close();
  });
  after(async () => {
    await service?.close();
    disk?.unmount();
  });

  it('answers writes 503 with Retry-After, reads as usual, says so in /health, and recovers once there is room', async () => {
    disk!.fill();
    try {
      assert.deepEqual(await postFilter(service, writer, 'on a full disk'), { status: 503, retryAfter: '5', body: REFUSED });
      const read = await filtersApi(service.url, unusedToken).get('/api/v2/filters');
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(
        read.body.map((f: { title: string }) => f.title),
        ['to be read'],
      );
      assertUnwritable(await health(service), /full/i);
    } finally {
      disk!.free();
    }
    await waitUntil(async () => (await health(service)).status === 200, '/health ok once the disk has room');
    assert.equal((await postFilter(service, writer, 'after the disk was freed')).status, 200);
  });
});
