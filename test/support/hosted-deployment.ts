import { randomUUID } from 'node:crypto';
import { openAccountStore } from '../../src/stores.ts';
import { readWholeLog } from '../../src/events/event-history.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { checkReadModels } from '../../src/projections/admin/read-model-check.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { mongoStandInOn, natsServerOn } from './hosted-services.ts';
import { NodeProcess } from './node-process.ts';
import { scratchDir } from './scratch-dir.ts';
import type { TestHosts } from './test-hosts.ts';
import { waitUntil } from './wait-until.ts';

/**
 * The deployment's services on test hosts (test/support/test-hosts.ts): the MongoDB stand-in on host
 * `mongo`, NATS on host `nats`, and an account with a read/write token. The event log is SQLite on a shared
 * DATA_DIR (the hosts share a file system), so what a cut or a slow link touches is MongoDB and NATS.
 */
export interface HostedDeployment {
  readonly dir: string;
  readonly database: string;
  /** The stand-in's primary as host:port on its host's address. */
  readonly mongoAddress: string;
  readonly token: string;
  readonly accountId: string;
  readonly processes: NodeProcess[];
  /** Starts `script` on `host`, reaching MongoDB at `mongoAddress` (host:port) unless told otherwise. */
  start(host: string, script: string, extra?: Record<string, string>, mongoAddress?: string): NodeProcess;
  /** `verify --read-models`' check, once the read models hold the whole log: its number of differences. */
  differencesFromTheLog(): Promise<number>;
  /** The last lines of each process, for a failed test's output. */
  printLogs(): void;
  stop(): Promise<void>;
}

export async function hostedDeployment(hosts: TestHosts, env: Record<string, string>): Promise<HostedDeployment> {
  const [mongo, nats] = await Promise.all([mongoStandInOn(hosts, 'mongo'), natsServerOn(hosts, 'nats')]);
  const dir = scratchDir();
  const database = `cf_hosts_${randomUUID().slice(0, 8)}`;
  const mongoAddress = /^mongodb:\/\/([^/]+)\//.exec(mongo.url)![1]!;
  const urlVia = (address: string) => `mongodb://${address}/${database}?directConnection=true`;
  const accounts = await openAccountStore({ dataDir: dir, mongodbUrl: urlVia(mongoAddress) });
  let accountId: string;
  let token: string;
  try {
    const account = await accounts.createAccount(`owner${randomUUID().slice(0, 8)}`);
    accountId = account.id;
    token = await accounts.createToken(account.id, ['read:filters', 'write:filters']);
  } finally {
    await accounts.close();
  }
  const processes: NodeProcess[] = [];
  const common = { DATA_DIR: dir, NATS_URL: nats.url, NATS_STREAM_STORAGE: 'memory', RATE_LIMITS: 'off', ...env };
  return {
    dir,
    database,
    mongoAddress,
    token,
    accountId,
    processes,
    start(host, script, extra = {}, via = mongoAddress) {
      const child = NodeProcess.start(script, { ...common, MONGODB_URL: urlVia(via), HOST: hosts.address(host), ...extra }, hosts.prefix(host));
      processes.push(child);
      return child;
    },
    async differencesFromTheLog() {
      const events = SqliteEventStore.inDataDir(dir);
      const reads = await MongoReadStore.connect(urlVia(mongoAddress), database);
      try {
        let last = 0n;
        for await (const event of readWholeLog(events)) last = event.position;
        await waitUntil(async () => ((await reads.checkpoint(FILTERS_PROJECTION)) ?? -1n) >= last, 'the read models taking in the whole log');
        const drifts: unknown[] = [];
        const report = await checkReadModels(events, reads, { onDrift: (drift) => void drifts.push(drift) });
        if (report.differences > 0) console.log(JSON.stringify(drifts));
        return report.differences;
      } finally {
        await Promise.all([events.close(), reads.close()]);
      }
    },
    printLogs() {
      for (const child of processes)
        console.log(
          child.lines
            .slice(-15)
            .map((line) => JSON.stringify(line))
            .join('\n'),
          '\n',
        );
    },
    async stop() {
      await Promise.all(processes.map((child) => child.kill('SIGKILL')));
      mongo.stop();
      nats.stop();
    },
  };
}
