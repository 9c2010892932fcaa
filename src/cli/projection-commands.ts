import { Command } from 'commander';
import type { Config } from '../config.ts';
import { rebuildReadModels } from '../projections/admin/rebuild-read-models.ts';
import { FILTERS_PROJECTION } from '../projections/runtime/filter-projector.ts';
import { openEventStore, openReadStore } from '../stores.ts';
import { millisecondsArgument } from './cli-arguments.ts';
import { requireEventLog, requireReadModels } from './existing-stores.ts';
import { progressReporter } from './progress-reporter.ts';

/** `projections rebuild`: fresh read models from the log, swapped in while the service keeps answering. */
export function projectionCommands(config: Config): Command {
  const projections = new Command('projections').description('Operate the read models.');
  projections
    .command('rebuild')
    .description('Rebuild the v1 and v2 read models from the event log into fresh tables or collections and swap them in.')
    .option('--handover-timeout <ms>', 'how long to wait for a running projector to swap the rebuild in', millisecondsArgument, 30_000)
    .action(async (options: { handoverTimeout: number }) => {
      // A rebuild of a missing log would swap in empty read models.
      requireEventLog(config);
      const events = await openEventStore(config);
      const reads = await openReadStore(config, { bulk: true });
      const progress = progressReporter();
      try {
        const report = await rebuildReadModels(events, reads, {
          leaseMs: config.projectorLeaseMs,
          handoverTimeoutMs: Math.max(options.handoverTimeout, config.projectorLeaseMs * 2),
          onProgress: (p) => progress.update(p),
        });
        progress.done();
        const rate = Math.round(report.events / Math.max(report.fillSeconds, 0.001));
        const by = report.swappedBy === 'projector' ? 'the running projector' : 'this command (no projector was running)';
        process.stdout.write(
          `rebuilt ${report.events} events into generation ${report.generation}: ${rate} events/s ` +
            `(projecting ${report.fillSeconds.toFixed(2)} s, ${report.seconds.toFixed(2)} s in all); swapped in by ${by}\n`,
        );
      } finally {
        progress.done();
        await Promise.all([events.close(), reads.close()]);
      }
    });
  projections
    .command('parked')
    .description('Print the events the projector gave up on (parked), one JSON object per line, oldest first.')
    .action(async () => {
      // A mistyped DATA_DIR would otherwise get an empty store created and print nothing, as if none were parked.
      requireReadModels(config);
      const reads = await openReadStore(config);
      try {
        for (const parked of await reads.parkedEvents(FILTERS_PROJECTION)) {
          const { position, revision, ...rest } = parked;
          process.stdout.write(`${JSON.stringify({ position: position.toString(), revision: revision.toString(), ...rest })}\n`);
        }
      } finally {
        await reads.close();
      }
    });
  return projections;
}
