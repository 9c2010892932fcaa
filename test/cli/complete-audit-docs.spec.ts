import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { runCli, runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(join(ROOT, 'docs', 'auditing.md'), 'utf8');
const section = page.slice(page.indexOf('## A complete audit'));
const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

// docs/auditing.md "A complete audit": the block run as written by bash, from a directory of the
// auditor's own (npm finds the checkout through --prefix), against a running service.
describe('docs/auditing.md: a complete audit, run as written', function () {
  this.timeout(240_000);
  let dir: string;
  let service: RunningService;

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    assert.equal((await runCli(['account', 'create', 'alice'], { DATA_DIR: dir })).code, 0);
    const token = (await runCli(['token', 'create', 'alice'], { DATA_DIR: dir })).stdout.trim();
    const api = filtersApi(service.url, token);
    const id = (await api.post('/api/v2/filters', newFilter('spoilers', 'finale'))).body.id as string;
    await api.put(`/api/v2/filters/${id}`, { title: 'TV spoilers' });
  });

  after(async () => {
    await service?.close();
  });

  it('proves the log, tells her story, shows her filters at the head, exports her events and checks the read models', async () => {
    assert.equal(block.split('\n').filter(Boolean).length, 6, 'the section shows six commands');
    const auditor = scratchDir('auditor-');
    // `npm` as the auditor types it, from their own directory: npm runs the checkout's script there.
    const script = `set -euo pipefail\nnpm() { command npm --prefix "${ROOT}" "$@"; }\ncd "${auditor}"\n${block}`;
    const { code, stdout, stderr } = await runCommand('bash', ['-c', script], { DATA_DIR: dir });
    assert.equal(code, 0, stderr);

    const lines = stdout.split('\n');
    // verify --expect "$HEAD": the head the first verify printed, which the log passes through.
    const expected = /^verified (\d+) events; head (\d+:[0-9a-f]{64}); passes through \2$/.exec(lines[0]!);
    assert.ok(expected, lines[0]);
    const [events, head] = [Number(expected[1]), expected[2]!];
    // The table: her account's facts and her filter's events, in log order.
    const table = lines.slice(
      1,
      lines.findIndex((line) => line.startsWith('[')),
    );
    assert.match(table[0]!, /^time\s+position\s+stream\s+type\s+summary$/);
    const types = table.slice(1).map((row) => row.split(/\s+/)[3]);
    assert.deepEqual(types.slice(0, 3), ['AccountCreated', 'TokenIssued', 'FilterCreated']);
    assert.equal(types.at(-1), 'FilterUpdated');
    // verify counts every event of the log, her usage ledger's too (filterusage-<id>), which her story leaves out.
    const ledger = await runCli(['events', '--type', 'AccountUsageChanged'], { DATA_DIR: dir });
    const ledgerEvents = ledger.stdout.trimEnd().split('\n').filter(Boolean).length;
    assert.ok(ledgerEvents > 0, ledger.stderr);
    assert.equal(table.length - 1, events - ledgerEvents);
    // filters --as-of the head's position: her filter as the API served it then.
    const filters = JSON.parse(
      lines
        .slice(lines.findIndex((line) => line.startsWith('[')))
        .join('\n')
        .trim(),
    ) as { title: string }[];
    assert.deepEqual(
      filters.map((f) => f.title),
      ['TV spoilers'],
    );
    assert.match(stderr, new RegExp(`replayed this account's filters up to position ${head.split(':')[0]}`));
    // export --output alice.jsonl: in the auditor's directory, every one of her events.
    const exported = readFileSync(join(auditor, 'alice.jsonl'), 'utf8').trimEnd().split('\n');
    assert.equal(exported.length, events - ledgerEvents);
    // verify --read-models: the chains again, then the read models agree.
    assert.match(stderr, /read models match the log: \d+ accounts?, 1 filters? checked/);
  });
});
