import type { SettingHelp } from './process-help.ts';
import { Settings } from './settings.ts';

/** One environment variable: what --help says of it and how loading reads it. */
export interface SettingRow<T = unknown> {
  /** The default, as an operator would write it, or `unset`. */
  readonly fallback: string;
  readonly meaning: string;
  /** Reads and checks the variable `name` (the row's key), throwing a BadSetting for a value that does not fit. */
  read(settings: Settings, name: string): T;
}

/**
 * Every variable a process reads, keyed by its name, in the order its --help lists them. The one place a
 * setting is declared: loading reads through the table (settingReader) and --help is listed from it
 * (helpOf), so no setting can be read without being listed, nor listed without a reader.
 */
export type SettingTable = Readonly<Record<string, SettingRow>>;

/** The value each row of `Table` reads. */
export type SettingValues<Table extends SettingTable> = { readonly [Name in keyof Table]: ReturnType<Table[Name]['read']> };

/** Reads one setting of the table from the environment; each call reads and checks it anew. */
export type SettingReader<Table extends SettingTable> = <Name extends keyof Table & string>(name: Name) => SettingValues<Table>[Name];

/**
 * The reader loading uses. Loading asks for each setting where it needs it, so the settings are read in
 * the loader's order (which of two bad values is named first), not the help's.
 */
export function settingReader<Table extends SettingTable>(table: Table, env: NodeJS.ProcessEnv): SettingReader<Table> {
  const settings = new Settings(env);
  return (name) => table[name]!.read(settings, name) as SettingValues<Table>[typeof name];
}

/** A value taken as it is, or undefined: a URL, a secret, a file or a prefix whose user says what is wrong with it. */
export const unchecked = (settings: Settings, name: string): string | undefined => settings.optional(name);

/** The rows as --help lists them. */
export const helpOf = (table: SettingTable): readonly SettingHelp[] =>
  Object.entries(table).map(([name, { fallback, meaning }]) => ({ name, fallback, meaning }));

/** The table less the rows `names`, in the same order: a process that reads only some of another's settings. */
export function withoutSettings<Table extends SettingTable, Name extends keyof Table & string>(table: Table, names: readonly Name[]): Omit<Table, Name> {
  const left = Object.entries(table).filter(([name]) => !(names as readonly string[]).includes(name));
  return Object.fromEntries(left) as Omit<Table, Name>;
}

/** The names of the table's settings that `env` sets, with their values: none of another process's. */
export function environmentOf(table: SettingTable, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const picked: NodeJS.ProcessEnv = {};
  for (const name of Object.keys(table)) if (env[name] !== undefined) picked[name] = env[name];
  return picked;
}
