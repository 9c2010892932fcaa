import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFIG_SETTINGS, projectorEnvironment } from '../../src/config-help.ts';
import { loadConfig } from '../../src/config.ts';
import { WEBMAIL_SETTINGS } from '../../src/webmail/webmail-settings-help.ts';
import { loadWebmailConfig } from '../../src/webmail/webmail-config.ts';
import { runCommand } from '../support/run-cli.ts';

// Pinned byte for byte before the settings move into one table (issue 32): each process's --help, and
// what loading says of each setting given a value it cannot take. The files were written by the code
// before that move; a change to them is a change an operator sees.
const pinned = (name: string) => readFileSync(new URL(`settings-pins/${name}`, import.meta.url), 'utf8');

/** Values no setting takes all of: words, signs, sizes, hostile keys. */
export const HOSTILE_VALUES = ['maybe', '-1', '0', '99999999999999999999', '1.5', '__proto__', ' x ', 'nats://', 'on,off'];

/** For each setting and hostile value: the error line loading gives, or `ok`. */
export function loadingVerdicts(): string {
  const lines: string[] = [];
  const verdict = (load: () => unknown): string => {
    try {
      load();
      return 'ok';
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  };
  for (const { name } of CONFIG_SETTINGS) {
    for (const value of HOSTILE_VALUES) {
      lines.push(`api ${name}=${JSON.stringify(value)} -> ${verdict(() => loadConfig({ DATA_DIR: '/data', [name]: value }))}`);
      lines.push(`projector ${name}=${JSON.stringify(value)} -> ${verdict(() => loadConfig(projectorEnvironment({ DATA_DIR: '/data', [name]: value })))}`);
    }
  }
  for (const { name } of WEBMAIL_SETTINGS) {
    for (const value of HOSTILE_VALUES)
      lines.push(`webmail ${name}=${JSON.stringify(value)} -> ${verdict(() => loadWebmailConfig('/data', { [name]: value }))}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('settings: --help and error lines, pinned', function () {
  this.timeout(120_000);

  for (const [file, script] of [
    ['api-help.txt', 'src/main.ts'],
    ['projector-help.txt', 'src/projector-main.ts'],
  ] as const) {
    it(`${script} --help prints what it printed before, byte for byte`, async () => {
      const run = await runCommand(process.execPath, ['--import', 'tsx', script, '--help'], {});
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, pinned(file));
    });
  }

  it('loading answers every hostile value of every setting as before, error line for error line', () => {
    const now = loadingVerdicts().split('\n');
    const before = pinned('loading-verdicts.txt').split('\n');
    assert.equal(now.length, before.length);
    for (const [index, line] of now.entries()) assert.equal(line, before[index]);
  });

  it('a bad setting ends the process at once with the same one line', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts'], { PORT: 'maybe', DATA_DIR: '/nonexistent-house-pin' });
    assert.equal(run.code, 1);
    const lines = run.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, run.stdout);
    // Less what changes from run to run.
    const { time, pid, hostname, ...line } = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.ok(typeof time === 'number' && pid !== undefined && hostname !== undefined);
    assert.equal(`${JSON.stringify(line)}\n`, pinned('bad-port-line.txt'));
  });
});
