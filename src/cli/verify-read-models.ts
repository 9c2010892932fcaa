import type { Config } from '../config.ts';
import { checkReadModels } from '../projections/admin/read-model-check.ts';
import type { Drift } from '../projections/admin/read-model-diff.ts';
import { openEventStore, openReadStore } from '../stores.ts';
import { CliError } from './cli-error.ts';
import { requireEventLog, requireReadModels } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';

/** One JSON line a difference: where (account, filter, model, v1 record, field) and both values. */
const driftLine = ({ account, filter, model, keyword, field, live, log }: Drift): string =>
  JSON.stringify({ account, filter, model, ...(keyword === undefined ? {} : { keyword }), field, live, log });

/**
 * `verify --read-models`: the differences on stdout as they are found, a summary on stderr, and exit 1
 * when there is any. The live read models are only read; the replay goes into a scratch generation.
 */
export async function verifyReadModels(config: Config): Promise<void> {
  requireEventLog(config);
  requireReadModels(config);
  const events = await openEventStore(config);
  // The scratch generation is written like a rebuild's: nobody reads it, so its commits need not wait for the disk.
  const reads = await openReadStore(config, { bulk: true });
  try {
    const report = await checkReadModels(events, reads, { onDrift: (drift) => writeLine(driftLine(drift)) });
    const upTo = report.position === null ? 'no projected event (the read models hold no checkpoint)' : `position ${report.position}`;
    const checked = `${report.accounts} accounts, ${report.filters} filters checked against the log up to ${upTo} (${report.events} events replayed)`;
    if (report.differences > 0) throw new CliError(`the read models differ from the log in ${report.differences} places: ${checked}`);
    process.stderr.write(`read models match the log: ${checked}\n`);
  } finally {
    await Promise.all([events.close(), reads.close()]);
  }
}
