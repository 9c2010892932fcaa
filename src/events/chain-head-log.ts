import type { Logger } from '../shared/logger.ts';
import { formatHead, type ChainHead } from './event-chain.ts';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Logs the log chain's head (`{"event":"chain_head","head":"<position>:<hash>"}`) now and every hour, so
 * an operator's log archive holds heads that `verify --expect` can check the log against later. Reading
 * the head costs one row on SQLite, whatever the log's length; on EventStoreDB it seals the events
 * appended since the last seal (chain-heads.ts). It never delays the start. Returns a stop function.
 */
export function logChainHeads(readHead: () => Promise<ChainHead | null>, logger: Logger, everyMs = HOUR_MS): () => void {
  const log = async () => {
    try {
      const head = await readHead();
      logger.info({ event: 'chain_head', head: head ? formatHead(head) : null }, head ? 'event log chain head' : 'event log chain head: the log is empty');
    } catch (error) {
      // The reason without a stack: an unreachable store's failure is logged once with its stack by the projector.
      logger.warn(
        { event: 'chain_head_unreadable', reason: error instanceof Error ? error.message : String(error) },
        'could not read the event log chain head',
      );
    }
  };
  void log();
  const timer = setInterval(() => void log(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
