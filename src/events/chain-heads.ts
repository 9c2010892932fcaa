import type { ChainHead } from './event-chain.ts';
import { storePath } from '../shared/store-files.ts';

/** Where the service reads the head it logs (chain-head-log.ts); null for a store with no log chain head. */
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
    return EsdbChainSource.connect(config.eventStoreUrl);
  }
  const { SqliteChainSource } = await import('./sqlite-chain-source.ts');
  const source = new SqliteChainSource(storePath(config.dataDir, 'events'));
  return { head: async () => source.head(), close: async () => source.close() };
}
