import type { Config } from './config.ts';
import type { EventStore } from './events/event-store.ts';
import { SqliteEventStore } from './events/sqlite-event-store.ts';
import type { ManagedReadStore } from './projections/read-model-admin.ts';
import { SqliteReadStore } from './projections/sqlite-read-store.ts';

/**
 * Which adapter backs each port: EventStoreDB when EVENTSTORE_URL is set, MongoDB when MONGODB_URL is
 * set, the embedded SQLite files in DATA_DIR otherwise. The two choices are independent. The server
 * drivers are loaded only when configured, so the embedded default (and every CLI call) starts faster.
 */
export async function openEventStore(config: Config): Promise<EventStore> {
  if (!config.eventStoreUrl) return SqliteEventStore.inDataDir(config.dataDir);
  const { EsdbEventStore } = await import('./events/esdb-event-store.ts');
  return EsdbEventStore.connect(config.eventStoreUrl);
}

export interface ReadStoreOptions {
  /** Only fills a fresh generation (the rebuild command): the embedded store may then skip per-commit syncs. */
  readonly bulk?: boolean;
}

export async function openReadStore(config: Config, options: ReadStoreOptions = {}): Promise<ManagedReadStore> {
  if (config.mongodbUrl) {
    const { MongoReadStore } = await import('./projections/mongo-read-store.ts');
    return MongoReadStore.connect(config.mongodbUrl);
  }
  const store = SqliteReadStore.inDataDir(config.dataDir);
  return options.bulk ? store.relaxDurability() : store;
}

/** For start-up logs: where events and read models live, without credentials. */
export function describeStores(config: Config): { events: string; readModels: string } {
  return {
    events: config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
    readModels: config.mongodbUrl ? 'mongodb' : 'sqlite',
  };
}
