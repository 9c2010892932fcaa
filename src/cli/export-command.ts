import { createWriteStream, fchmodSync, type WriteStream } from 'node:fs';
import { Command } from 'commander';
import type { Config } from '../config.ts';
import type { EventStore } from '../events/event-store.ts';
import { eventHistory, historyLine } from '../events/event-history.ts';
import { hasHistoryText, type HistoryChunk, type HistoryTextQuery } from '../events/history-text.ts';
import { openEventStore } from '../stores.ts';
import { accountId } from './account-lookup.ts';
import { CliError } from './cli-error.ts';
import { countProgress } from './count-progress.ts';
import { requireEventLog } from './existing-stores.ts';
import { writeText } from './stdout-lines.ts';
import { userPath } from './user-path.ts';
import { PRIVATE_FILE_MODE } from '../shared/private-files.ts';

const CHUNK = 4096;

/** Stores that keep JSON text hand it over as it is; the others' events are printed one by one, in chunks. */
export async function* chunksOf(store: EventStore, query: HistoryTextQuery): AsyncGenerator<HistoryChunk> {
  if (hasHistoryText(store)) {
    yield* store.historyText(query);
    return;
  }
  let [text, events] = ['', 0];
  for await (const event of eventHistory(store, query)) {
    text += `${historyLine(event)}\n`;
    if (++events === CHUNK) {
      yield { text, events };
      [text, events] = ['', 0];
    }
  }
  if (events > 0) yield { text, events };
}

/** The file to write: readable by its owner only, since the log names accounts and requests. */
async function openOutput(path: string): Promise<WriteStream> {
  const file = createWriteStream(userPath(path), { mode: PRIVATE_FILE_MODE });
  await new Promise<void>((resolve, reject) => {
    // The mode applies to a file created here; one that existed keeps its own unless narrowed.
    file.once('open', (fd: number) => {
      try {
        fchmodSync(fd, PRIVATE_FILE_MODE);
        resolve();
      } catch (error) {
        reject(new CliError(`cannot write ${path}: ${(error as Error).message}`));
      }
    });
    file.once('error', (error) => reject(new CliError(`cannot write ${path}: ${error.message}`)));
  });
  return file;
}

interface ExportOptions {
  readonly account?: string;
  readonly all?: boolean;
  readonly output?: string;
}

/** `export`: every event of an account, or of the log, as the JSON lines `events` prints, for an auditor to keep. */
export function exportCommand(config: Config): Command {
  return new Command('export')
    .description('Write every event of an account (or of the whole log) as JSON lines, as `events` prints them; progress on stderr.')
    .option('--account <username-or-id>', "the events of this account's filters")
    .option('--all', 'every event of the log')
    .option('--output <file>', 'write to this file (created readable by its owner only) instead of stdout')
    .action(async (options: ExportOptions) => {
      if ((options.account === undefined) === (options.all !== true)) throw new CliError('export: give either --account <username-or-id> or --all');
      requireEventLog(config);
      const query = options.account === undefined ? {} : { accountId: await accountId(config, options.account) };
      const store = await openEventStore(config);
      const output = options.output === undefined ? process.stdout : await openOutput(options.output);
      let failed: Error | null = null;
      output.on('error', (error: Error) => (failed = error));
      const progress = countProgress('export');
      try {
        for await (const chunk of chunksOf(store, query)) {
          await writeText(chunk.text, output);
          if (failed) throw new CliError(`cannot write ${options.output}: ${(failed as Error).message}`);
          progress.add(chunk.events);
        }
        if (output !== process.stdout) await new Promise<void>((resolve) => (output as WriteStream).end(resolve));
        if (failed) throw new CliError(`cannot write ${options.output}: ${(failed as Error).message}`);
        progress.done();
      } finally {
        if (output !== process.stdout) (output as WriteStream).destroy();
        await store.close();
      }
    });
}
