import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface DocCommand {
  /** The page, relative to the project root. */
  readonly page: string;
  /** One command as a reader would paste it: continuation lines joined, the trailing comment dropped, spaces squeezed. */
  readonly command: string;
}

/** The pages whose shell blocks are commands to run: README.md and every docs/*.md. */
export function docPages(): string[] {
  const docs = readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Every command line of the page's ```sh (or bash, shell) blocks; comment lines and output shown as comments are not commands. */
export function shellCommands(page: string): DocCommand[] {
  const text = readFileSync(`${ROOT}${page}`, 'utf8');
  const commands: DocCommand[] = [];
  for (const [, body] of text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) {
    // A line ending in `\` or `|` goes on on the next one.
    const joined = body!.replace(/(\\|\|)\n\s*/g, (_, end: string) => (end === '|' ? '| ' : ''));
    for (const line of joined.split('\n')) {
      const command = line
        .replace(/\s+# .*$/, '')
        .replace(/\s+/g, ' ')
        .trim();
      if (command === '' || command.startsWith('#')) continue;
      commands.push({ page, command });
    }
  }
  return commands;
}
