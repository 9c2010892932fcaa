import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../config.ts';
import { verifyChains, type VerifyOutcome } from '../events/chain-verify.ts';
import { formatHead, parseHead, type ChainHead } from '../events/event-chain.ts';
import { verifySqliteLog } from '../events/sqlite-verify.ts';
import { CliError } from './cli-error.ts';
import { requireEventLog } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';
import { verifyReadModels } from './verify-read-models.ts';
import { storePath } from '../shared/store-files.ts';

/** Exit code of a log that fails verification, apart from 1 (the store could not be read at all). */
export const CHAIN_BROKEN_EXIT = 2;

function headArgument(text: string): ChainHead {
  const head = parseHead(text);
  if (!head) throw new InvalidArgumentError('expected <position>:<64 hex digits>, as verify printed it');
  return head;
}

/** Every chain of the configured event store checked; says whether it seals the log apart (EventStoreDB). */
async function verifyLog(config: Config, expect: ChainHead | null): Promise<{ outcome: VerifyOutcome; sealed: boolean }> {
  if (!config.eventStoreUrl) return { outcome: await verifySqliteLog(storePath(config.dataDir, 'events'), expect), sealed: false };
  const { EsdbChainSource } = await import('../events/esdb-chain-source.ts');
  const source = EsdbChainSource.connect(config.eventStoreUrl);
  try {
    return { outcome: await verifyChains(source, expect), sealed: true };
  } finally {
    await source.close();
  }
}

/**
 * `verify`: every hash chain of the event log checked in one streaming pass (split over threads on
 * SQLite) (docs/auditing.md). On success stdout says how many events and the log chain's head; a break
 * ends with exit code 2 and one line naming the first position that fails and why. `--read-models` then
 * compares the read models with that log (verify-read-models.ts): a comparison with a log that fails its
 * chains would prove nothing, so the chains come first, and their line goes to stderr, leaving stdout to
 * the differences.
 */
export function verifyCommand(config: Config): Command {
  return new Command('verify')
    .description('Check the hash chains of the event log; print the event count and the head (<position>:<hash>).')
    .option('--expect <position:hash>', 'a head recorded earlier: the log must still pass through it', headArgument)
    .option(
      '--read-models',
      "then replay the log into a scratch generation and compare every account's v1 and v2 read models with it; exit 1 on any difference",
    )
    .action(async (options: { expect?: ChainHead; readModels?: boolean }) => {
      requireEventLog(config);
      const { outcome, sealed } = await verifyLog(config, options.expect ?? null);
      if (!outcome.ok) {
        const where = outcome.position === null ? '' : ` at position ${outcome.position}`;
        throw new CliError(`verify failed${where}: ${outcome.reason}`, CHAIN_BROKEN_EXIT);
      }
      const head = outcome.head ? formatHead(outcome.head) : 'none';
      const expected = options.expect ? `; passes through ${formatHead(options.expect)}` : '';
      const seals = sealed ? `; sealed through ${outcome.sealedThrough ?? 'nothing yet'}` : '';
      const verified = `verified ${outcome.events} events; head ${head}${expected}${seals}`;
      if (!options.readModels) return writeLine(verified);
      process.stderr.write(`${verified}\n`);
      await verifyReadModels(config);
    });
}
