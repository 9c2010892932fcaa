import assert from 'node:assert/strict';
import { CONFIG_SETTINGS, PROJECTOR_SETTINGS, projectorEnvironment } from '../../src/config-help.ts';
import { CONFIG_SETTING_TABLE } from '../../src/config-settings.ts';
import { loadConfig } from '../../src/config.ts';
import { loadRpcConfig, RPC_SETTING_TABLE } from '../../src/rpc/rpc-config.ts';
import type { SettingHelp } from '../../src/shared/process-help.ts';
import { environmentOf, helpOf, settingReader, withoutSettings, type SettingTable } from '../../src/shared/setting-table.ts';
import { loadWebmailConfig, WEBMAIL_SETTING_TABLE } from '../../src/webmail/webmail-config.ts';
import { WEBMAIL_SETTINGS } from '../../src/webmail/webmail-settings-help.ts';

/** The names of the variables a loader reads, seen through an environment that records them. */
function variablesReadBy(load: (env: NodeJS.ProcessEnv) => unknown): string[] {
  const read = new Set<string>();
  const env = new Proxy({}, { get: (_target, key) => (typeof key === 'string' && read.add(key), undefined) });
  load(env);
  return [...read].sort();
}

const DATA_DIR = '/data';

// Each process as its main file puts it together: what loading reads, and the list its --help prints.
const PROCESSES: readonly { name: string; load: (env: NodeJS.ProcessEnv) => unknown; help: readonly SettingHelp[] }[] = [
  {
    name: 'the API (with the webmail)',
    load: (env) => [loadConfig(env), loadWebmailConfig(DATA_DIR, env)],
    help: [...CONFIG_SETTINGS, ...WEBMAIL_SETTINGS],
  },
  { name: 'the projector', load: (env) => loadConfig(projectorEnvironment(env)), help: PROJECTOR_SETTINGS },
  { name: 'the gRPC process', load: loadRpcConfig, help: helpOf(RPC_SETTING_TABLE) },
];

const TABLES: readonly { name: string; table: SettingTable; load: (env: NodeJS.ProcessEnv) => unknown }[] = [
  { name: 'the API and projector', table: CONFIG_SETTING_TABLE, load: loadConfig },
  { name: 'the webmail', table: WEBMAIL_SETTING_TABLE, load: (env) => loadWebmailConfig(DATA_DIR, env) },
  { name: 'the gRPC process', table: RPC_SETTING_TABLE, load: loadRpcConfig },
];

describe('one settings table drives both loading and --help (issue 32)', () => {
  for (const { name, load, help } of PROCESSES) {
    it(`${name}: every variable loading reads is in --help, and --help lists nothing loading does not read`, () => {
      const listed = help.map((setting) => setting.name);
      assert.equal(new Set(listed).size, listed.length, `a variable is listed twice: ${listed.join(' ')}`);
      assert.deepEqual(variablesReadBy(load), [...listed].sort());
    });
  }

  for (const { name, table, load } of TABLES) {
    it(`${name}: each default --help shows is the one loading takes when the variable is unset`, () => {
      // Unset, and the webmail's key (made and kept in that file when unset), are no value one could write.
      const shown = helpOf(table).filter((row) => row.fallback !== 'unset' && row.name !== 'WEBMAIL_DES_KEY');
      assert.ok(shown.length >= 5, shown.map((row) => row.name).join(' '));
      for (const row of shown) {
        const written = row.fallback.replace('<DATA_DIR>', DATA_DIR);
        assert.deepEqual(load({ [row.name]: written }), load({}), `${row.name}=${written} is not what loading takes by default`);
      }
    });
  }

  it('lists the rows in their order, each with its name, default and meaning, and nothing of how it is read', () => {
    const table = {
      B_FIRST: { fallback: '1', meaning: 'first', read: (s, n) => s.integer(n, 1, 0, 9) },
      A_SECOND: { fallback: 'unset', meaning: 'second', read: (s, n) => s.optional(n) },
    } satisfies SettingTable;
    assert.deepEqual(helpOf(table), [
      { name: 'B_FIRST', fallback: '1', meaning: 'first' },
      { name: 'A_SECOND', fallback: 'unset', meaning: 'second' },
    ]);
  });

  it('reads a setting by the name of its row, and names that row when its value does not fit', () => {
    const table = { N_ROW: { fallback: '1', meaning: 'a number', read: (s, n) => s.integer(n, 1, 0, 9) } } satisfies SettingTable;
    assert.equal(settingReader(table, {})('N_ROW'), 1);
    assert.equal(settingReader(table, { N_ROW: ' 7 ' })('N_ROW'), 7);
    assert.throws(() => settingReader(table, { N_ROW: '10' })('N_ROW'), /^BadSetting: N_ROW must be an integer from 0 to 9, got 10$/);
  });

  it("takes only a table's own variables from an environment, and a table less some rows keeps the others' order", () => {
    const table = withoutSettings(CONFIG_SETTING_TABLE, ['TRUST_PROXY', 'CORS_ORIGINS']);
    assert.deepEqual(
      Object.keys(table),
      Object.keys(CONFIG_SETTING_TABLE).filter((name) => name !== 'TRUST_PROXY' && name !== 'CORS_ORIGINS'),
    );
    assert.deepEqual(environmentOf(table, { PORT: '1', TRUST_PROXY: 'on', CORS_ORIGINS: '*', OTHER: 'x' }), { PORT: '1' });
  });
});
