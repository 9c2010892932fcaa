import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { docPages, shellCommands } from '../support/docs-commands.ts';
import { DOCS_COMMAND_COVERAGE } from './docs-command-coverage.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

// A page that shows a command promises it works: each one is run by a test, or says what it needs.
describe('every command shown in README.md and docs/*.md', () => {
  const shown = docPages().flatMap(shellCommands);

  it('finds the commands of every page with a shell block', () => {
    const pages = new Set(shown.map((command) => command.page));
    for (const page of ['README.md', 'docs/operations.md', 'docs/auditing.md', 'docs/grpc.md', 'docs/webmail.md']) assert.ok(pages.has(page), page);
    assert.ok(shown.length >= 50, `${shown.length} commands`);
  });

  it('is run by a listed test, or marked as needing something absent here', () => {
    const uncovered = shown.filter(({ command }) => !Object.hasOwn(DOCS_COMMAND_COVERAGE, command)).map(({ page, command }) => `${page}: ${command}`);
    assert.deepEqual(uncovered, [], 'add each to test/shared/docs-command-coverage.ts with the test that runs it');
  });

  it('names files that exist and still hold what runs the command', () => {
    const stale: string[] = [];
    for (const [command, coverage] of Object.entries(DOCS_COMMAND_COVERAGE)) {
      if ('needs' in coverage) continue;
      const path = `${ROOT}${coverage.runBy}`;
      if (!existsSync(path)) stale.push(`${command}: ${coverage.runBy} is gone`);
      else if (!readFileSync(path, 'utf8').includes(coverage.where)) stale.push(`${command}: ${coverage.runBy} no longer holds ${coverage.where}`);
    }
    assert.deepEqual(stale, []);
  });

  it('lists no command the docs no longer show', () => {
    const commands = new Set(shown.map(({ command }) => command));
    assert.deepEqual(
      Object.keys(DOCS_COMMAND_COVERAGE).filter((command) => !commands.has(command)),
      [],
    );
  });
});
