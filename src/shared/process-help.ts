import { VERSION } from './version.ts';

/** One environment variable a process reads, as its --help lists it. */
export interface SettingHelp {
  readonly name: string;
  /** The default, as an operator would write it, or `unset`. */
  readonly fallback: string;
  readonly meaning: string;
}

/** What a server process says about itself when asked with --help or --version instead of starting. */
export interface ProcessHelp {
  /** How it is started, e.g. `npm start` or `node dist/main.js`. */
  readonly usage: string;
  readonly summary: string;
  readonly settings: readonly SettingHelp[];
}

const KNOWN_ARGUMENTS = new Set(['--help', '-h', '--version', '-V']);

/** An argument the process does not understand: it must not start as if nothing had been asked. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const usageLine = (help: ProcessHelp): string => `Usage: ${help.usage} [--help | --version]`;

export function helpText(help: ProcessHelp): string {
  const width = Math.max(...help.settings.map((setting) => setting.name.length));
  const rows = help.settings.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.fallback})`);
  return [
    usageLine(help),
    '',
    help.summary,
    '',
    'Options:',
    '  -h, --help     print this help and exit',
    '  -V, --version  print the version and exit',
    '',
    'Settings (environment variables):',
    ...rows,
    '',
  ].join('\n');
}

/**
 * The text to print instead of starting when the arguments ask for help or the version, else null.
 * An operator who types `node dist/main.js --help` wants to read, not to start a server on port 3000.
 */
export function informationAsked(argv: readonly string[], help: ProcessHelp): string | null {
  const unknown = argv.find((arg) => !KNOWN_ARGUMENTS.has(arg));
  if (unknown !== undefined) throw new UsageError(`unknown argument '${unknown}'\n${usageLine(help)}`);
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return helpText(help);
  if (argv.some((arg) => arg === '--version' || arg === '-V')) return `${VERSION}\n`;
  return null;
}
