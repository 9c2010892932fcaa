import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { WORKER_NUMBERS } from '../../src/shared/ids.ts';
import { workerLeaseName } from '../../src/shared/worker-numbers.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const metric = async (url: string, series: string) =>
  (await (await fetch(`${url}/metrics`)).text())
    .split('\n')
    .find((l) => l.startsWith(`${series} `))
    ?.slice(series.length + 1);

describe('Restarts on one data directory (real processes)', function () {
  this.timeout(240_000);
  const processes: NodeProcess[] = [];
  const start = (env: Record<string, string>) => {
    const child = NodeProcess.start('src/main.ts', env);
    processes.push(child);
    return child;
  };
  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
  });

  it('a service killed with SIGKILL and restarted at once projects again at once, not after its old lease ran out', async () => {
    const dir = scratchDir();
    const owner = await newOwner(dir);
    // A lease far longer than the test (the default 10 s can run out while a loaded machine starts the
    // second process): only the take-over from a dead holder lets the second one project.
    const lease = { PROJECTOR_LEASE_MS: '600000' };
    const first = start({ DATA_DIR: dir, ...lease });
    const before = await filtersApi(await first.url(), owner.token).post('/api/v2/filters', newFilter('before the crash'));
    assert.equal(before.status, 200);
    await first.kill('SIGKILL');

    const second = start({ DATA_DIR: dir, ...lease });
    const url = await second.url();
    const api = filtersApi(url, owner.token);
    const after = await api.post('/api/v2/filters', newFilter('after the restart'));
    assert.equal(after.status, 200);
    assert.deepEqual(
      (await api.get('/api/v2/filters')).body.map((f: { title: string }) => f.title),
      ['before the crash', 'after the restart'],
    );
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200, await health.clone().text());
    assert.equal(((await health.json()) as { leader: boolean }).leader, true);
    assert.equal(await metric(url, 'projector_leader'), '1');
    assert.equal(await metric(url, 'read_your_writes_timeouts_total'), '0');
    await second.waitForLog((line) => line.msg === 'took the projector lease over from a dead process on this host');
  });

  it('a start that cannot bind its port ends with one fatal line, exit code 1, and holds no lease', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const dir = scratchDir();
      const refused = start({ DATA_DIR: dir, PORT: String((busy.address() as { port: number }).port) });
      assert.equal(await refused.exited, 1);
      const fatal = refused.lines.filter((line) => line.level === 60);
      assert.equal(fatal.length, 1);
      assert.match(JSON.stringify(fatal[0]), /EADDRINUSE/);
      const reads = SqliteReadStore.inDataDir(dir);
      try {
        assert.equal(await reads.leaseHolder(FILTERS_LEASE), null, 'the projector lease was never taken');
        for (let n = 0; n < WORKER_NUMBERS; n += 1) assert.equal(await reads.leaseHolder(workerLeaseName(n)), null, `worker number ${n} was given back`);
      } finally {
        await reads.close();
      }
    } finally {
      busy.close();
    }
  });
});
