import type { ChainHead } from './event-chain.ts';
import { retryWhileBusy } from '../shared/sqlite-busy.ts';
import { storePath } from '../shared/store-files.ts';

/**
 * Where the service reads the head it logs (chain-head-log.ts); null for a store with no log chain head.
 * What `head()` costs differs by store: on SQLite one row (the last event's chain column); on
 * EventStoreDB it seals the log (EsdbChainSource.sealHead): it reads every event since the last seal and
 * appends a seal when there were any.
 */
export interface ChainHeads {
  head(): Promise<ChainHead | null>;
  close(): Promise<void>;
}

/** The settings it needs, named here: the events layer does not import the process's settings (config.ts). */
export interface ChainHeadsSettings {
  readonly eventStoreUrl: string | undefined;
  readonly dataDir: string;
}

export async function openChainHeads(config: ChainHeadsSettings): Promise<ChainHeads | null> {
  if (config.eventStoreUrl) {
    const { EsdbChainSource } = await import('./esdb-chain-source.ts');
    const source = EsdbChainSource.connect(config.eventStoreUrl);
    return { head: () => source.sealHead(), close: () => source.close() };
  }
  const { SqliteChainSource } = await import('./sqlite-chain-source.ts');
  // A connection of the main thread: the main thread's SQLite policy (sqlite-busy.ts), no 5 s busy wait.
  const source = new SqliteChainSource(storePath(config.dataDir, 'events'), undefined, 'main-thread');
  return { head: () => retryWhileBusy(() => source.head()), close: async () => source.close() };
}
