import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const DOC = new URL('../../docs/auditing.md', import.meta.url);
const PREFIX = 'npm run --silent cli -- ';

/** The command lines of the page's list of all the commands (its `sh` block after "All the commands:"), comments left out. */
function documentedCommands(): string[] {
  const page = readFileSync(DOC, 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(page.slice(page.indexOf('All the commands:')))![1]!;
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

// An auditor follows docs/auditing.md on a running service: every command shown there, as written.
describe('docs/auditing.md: every command shown, run as written', function () {
  this.timeout(180_000);
  let dir: string;
  let service: RunningService;
  let alice: Owner;
  let filterId: string;

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    alice = await newOwner(dir, 'alice');
    const api = filtersApi(service.url, alice.token);
    filterId = (await api.post('/api/v2/filters', newFilter('spoilers'))).body.id;
    await api.put(`/api/v2/filters/${filterId}`, { title: 'TV spoilers' });
  });

  after(async () => {
    await service?.close();
  });

  it('runs each command with its placeholders filled in, and each succeeds', async () => {
    const commands = documentedCommands();
    assert.ok(commands.length >= 10, `found ${commands.length} commands`);
    const files: string[] = [];
    for (const command of commands) {
      assert.ok(command.startsWith(PREFIX), command);
      const words = command.slice(PREFIX.length).split(/\s+/);
      const args = words.map((word, i) => {
        const flag = words[i - 1];
        if (word === '<id>') return flag === '--filter' ? filterId : alice.accountId;
        if (word === '<username-or-id>') return 'alice';
        if (word === '<position>') return '1';
        if (word === '<position|time>') return '3';
        if (word === '<file>') return files[files.push(join(scratchDir(), 'export.jsonl')) - 1]!;
        assert.doesNotMatch(word, /^<.*>$/, `a placeholder this test does not know: ${word}`);
        return word;
      });
      const result = await runCli(args, { DATA_DIR: dir });
      assert.equal(result.code, 0, `${command}: ${result.stderr}`);
      if (args[0] === 'events' && !args.includes('--type')) assert.ok(result.stdout.length > 0, `${command} printed events`);
    }
    assert.equal(files.length, 2);
    for (const file of files) assert.ok(existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 2, file);
  });
});
