import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { eventLines } from '../support/account-story.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const page = readFileSync(new URL('../../docs/auditing.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf("## An account's story"));
const fenced = (language: string) => new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1] ?? '';

// docs/auditing.md "An account's story": its commands, as written and in their order, then its example line.
describe("docs/auditing.md: an account's story, its commands run as written", function () {
  this.timeout(60_000);

  it('runs every command of the section and prints the facts the example shows', async () => {
    const commands = fenced('sh')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^npm run --silent cli -- /, ''));
    assert.equal(commands.length, 5, 'the section shows five commands');
    const env = { DATA_DIR: scratchDir() };
    let tokenId = '';
    const outputs: string[] = [];
    for (const command of commands) {
      const args = command.replace('<token id>', tokenId).split(' ');
      const result = await runCli(args, env);
      assert.equal(result.code, 0, `${command}: ${result.stderr}`);
      if (command.startsWith('token create')) tokenId = result.stdout.trim().split('_')[0]!;
      outputs.push(result.stdout);
    }
    const story = eventLines(outputs[3]!);
    assert.deepEqual(
      story.map((e) => e.type),
      ['AccountCreated', 'TokenIssued', 'TokenRevoked'],
    );
    const example = JSON.parse(fenced('json').replace(/\n/g, '')) as Record<string, any>;
    const revoked = story[2] as unknown as Record<string, any>;
    assert.deepEqual(Object.keys(revoked), Object.keys(example));
    assert.deepEqual([revoked.revision, revoked.position], [example.revision, example.position]);
    assert.deepEqual(Object.keys(revoked.data), Object.keys(example.data));
    assert.deepEqual(Object.keys(revoked.metadata), Object.keys(example.metadata));
    assert.deepEqual([revoked.data.tokenId, revoked.data.actor, revoked.metadata.source], [tokenId, example.data.actor, example.metadata.source]);
    const [listed] = eventLines(outputs[4]!) as unknown as Record<string, unknown>[];
    assert.deepEqual([listed!.tokenId, listed!.revokedBy], [tokenId, { kind: 'operator' }]);
  });
});
