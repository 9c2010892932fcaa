import assert from 'node:assert/strict';
import { createClient } from 'redis';
import type { EventMetadata } from '../../src/events/filter-events.ts';
import { openAccountStore } from '../../src/stores.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { newId } from '../../src/shared/ids.ts';
import { newOwner, type Owner } from '../support/filters-api.ts';
import { coreListener, increasing, byAccount, streamContents } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';
import { writeBurst, type Sent } from './support/chaos-writer.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Rounds during which NATS is stopped: the second and third (processes are killed during the outage). */
const OUTAGE = new Set([1, 2]);

interface Commit {
  readonly accountId: string;
  readonly requestId: string;
  readonly messageId: string;
}

/** Each commit in the log, read straight from the SQLite file: what must be announced. */
async function commitsInLog(events: EventStore): Promise<Commit[]> {
  const commits: Commit[] = [];
  try {
    for (let after: bigint | null = null; ;) {
      const page = await events.readAll({ after, limit: 1000 });
      if (page.length === 0) return commits;
      after = page.at(-1)!.position;
      for (const event of page) {
        const m = event.metadata as EventMetadata;
        if (event.streamName.startsWith('filter-') && m.commitIndex === m.commitSize - 1)
          commits.push({ accountId: m.accountId, requestId: m.requestId, messageId: `filters_changed-${event.eventId}` });
      }
    }
  } finally {
    await events.close();
  }
}

interface Where {
  readonly label: string;
  readonly rounds: number;
  /** Answers a round waits for before its kill, at least (up to twice as many). */
  readonly answers: number;
  readonly env: Record<string, string>;
  owners(dir: string): Promise<Owner[]>;
  openEvents(dir: string): EventStore;
}

async function chaos(context: Mocha.Context, where: Where): Promise<void> {
  const redis = createClient({ url: redisUrl, socket: { reconnectStrategy: false } });
  redis.on('error', () => {});
  if (
    !(await redis.connect().then(
      () => true,
      () => false,
    ))
  ) {
    console.log(`      skipped: no Redis at ${redisUrl}`);
    context.skip();
  }
  const nats = await OwnNatsServer.start();
  const dir = scratchDir();
  const namespace = `cf-chaos-${newId()}`;
  const owners: Owner[] = await where.owners(dir);
  const redisHeard = new Map<string, number>();
  await redis.pSubscribe(`${namespace}:timeline:*`, (_message, channel) => {
    if (channel.includes(':system:')) return;
    const accountId = channel.slice(`${namespace}:timeline:`.length);
    redisHeard.set(accountId, (redisHeard.get(accountId) ?? 0) + 1);
  });
  const core = await coreListener(nats.url);
  const coreIds = new Map<string, number>();
  core.connection.subscribe('timeline.*', {
    callback: (_e, message) => {
      const id = message.headers?.get('Nats-Msg-Id') ?? '';
      coreIds.set(id, (coreIds.get(id) ?? 0) + 1);
    },
  });
  const env = { DATA_DIR: dir, RATE_LIMITS: 'off', NATS_URL: nats.url, REDIS_URL: redisUrl, REDIS_NAMESPACE: namespace, ...where.env };
  const sent: Sent[] = [];
  let kills = 0;
  let outageMs = 0;
  let outageFrom = 0;
  try {
    for (let round = 0; round < where.rounds; round += 1) {
      if (OUTAGE.has(round) && !OUTAGE.has(round - 1)) {
        await nats.stop();
        outageFrom = Date.now();
      }
      // Odd rounds: an HTTP process and `npm run projector`'s process, both killed; even ones: the single process.
      const topology = round % 2 === 1;
      const processes = topology
        ? [NodeProcess.start('src/projector-main.ts', env), NodeProcess.start('src/main.ts', { ...env, PROJECTOR: 'off' })]
        : [NodeProcess.start('src/main.ts', env)];
      const url = await processes.at(-1)!.url();
      if (topology) await processes[0]!.url();
      const before = sent.length;
      const bursts = owners.map((owner) => writeBurst(url, owner, sent));
      // Killed while requests are in flight and announcements wait: after some answers.
      const target = before + where.answers + Math.floor(Math.random() * where.answers);
      await waitUntil(() => sent.length >= target, `${target - before} answers in round ${round}`);
      for (const child of processes) {
        await child.kill('SIGKILL');
        kills += 1;
      }
      await Promise.all(bursts.map((b) => b.done));
      if (OUTAGE.has(round) && !OUTAGE.has(round + 1)) {
        await nats.resume();
        outageMs += Date.now() - outageFrom;
      }
    }
    // A last process, left alone until nothing waits.
    const last = NodeProcess.start('src/main.ts', env);
    const url = await last.url();
    await waitUntil(async () => {
      const health = (await (await fetch(`${url}/health`)).json()) as { announcements: { waitingCommits: number; state: string }[] };
      return health.announcements.length === 2 && health.announcements.every((a) => a.waitingCommits === 0 && a.state === 'connected');
    }, 'every announcement out on NATS and Redis');

    const events = where.openEvents(dir);
    const commits = await commitsInLog(events).finally(() => events.close());
    const stream = await streamContents(nats.url, commits.length);
    await core.connection.flush();
    const { positions, duplicates } = byAccount(stream);
    const figures = {
      changes: commits.length,
      acknowledgedChanges: sent.filter((s) => s.outcome === 'changed').length,
      unansweredAtKill: sent.filter((s) => s.outcome === 'unknown').length,
      refusedOrNoop: sent.filter((s) => s.outcome === 'unchanged').length,
      kills,
      outageSeconds: Math.round(outageMs / 100) / 10,
      messagesInStream: stream.length,
      duplicatesInStream: duplicates.length,
      coreDeliveries: [...coreIds.values()].reduce((a, b) => a + b, 0),
      redisDeliveries: [...redisHeard.values()].reduce((a, b) => a + b, 0),
    };
    console.log(`      chaos figures (${where.label}): ${JSON.stringify(figures)}`);
    await last.kill('SIGTERM');

    assert.deepEqual(duplicates, [], 'no change twice in the stream');
    assert.deepEqual(stream.map((c) => c.messageId).sort(), commits.map((c) => c.messageId).sort(), 'the stream holds exactly the commits of the log');
    for (const owner of owners) assert.ok(increasing(positions.get(owner.accountId) ?? []), 'in log order per account');
    const logged = new Set(commits.map((c) => c.requestId));
    const lost = sent.filter((s) => s.outcome === 'changed' && !logged.has(s.requestId));
    assert.deepEqual(lost, [], 'every acknowledged change is in the log');
    assert.deepEqual(
      sent.filter((s) => s.outcome === 'unchanged' && logged.has(s.requestId)),
      [],
      'refused and no-op requests appended nothing',
    );
    assert.deepEqual(
      commits.filter((c) => !coreIds.has(c.messageId)),
      [],
      'core NATS subscribers heard every change at least once',
    );
    for (const owner of owners) {
      const expected = commits.filter((c) => c.accountId === owner.accountId).length;
      assert.ok((redisHeard.get(owner.accountId) ?? 0) >= expected, `Redis: ${redisHeard.get(owner.accountId)} of ${expected} for one account`);
    }
    assert.ok(figures.acknowledgedChanges > 0);
  } finally {
    await core.connection.close();
    await redis.close();
    await nats.stop();
  }
}

describe('Announcements under chaos: kill -9 of the service and of the projector process during write bursts, NATS stopped part of the time', function () {
  this.timeout(600_000);
  const natsMissing = natsServerMissing();
  const standInsMissing = natsMissing ?? standInMissing();
  const mongo = mongoStandIn(standInsMissing);
  let esdb: EsdbStandIn | null = null;
  before(function () {
    if (natsMissing) {
      console.log(`      skipped: ${natsMissing}`);
      this.skip();
    }
  });
  after(() => esdb?.stop());

  const claim = 'puts every changing request in the stream exactly once, in log order per account; core NATS and Redis hear each at least once';

  it(`${claim} (SQLite)`, async function () {
    await chaos(this, {
      label: 'SQLite',
      rounds: 6,
      answers: 30,
      env: {},
      owners: (dir) => Promise.all([newOwner(dir), newOwner(dir), newOwner(dir)]),
      openEvents: (dir) => SqliteEventStore.inDataDir(dir),
    });
  });

  it(`${claim} (EventStoreDB and MongoDB stand-ins, not servers)`, async function () {
    if (standInsMissing) {
      console.log(`      skipped: ${standInsMissing}`);
      this.skip();
    }
    esdb = await EsdbStandIn.start();
    const eventStoreUrl = esdb.url;
    const mongodbUrl = mongo.url().replace('/?', `/cf_chaos_${newId()}?`);
    await chaos(this, {
      label: 'EventStoreDB and MongoDB stand-ins',
      rounds: 4,
      answers: 15,
      env: { EVENTSTORE_URL: eventStoreUrl, MONGODB_URL: mongodbUrl },
      owners: async (dir) => {
        const accounts = await openAccountStore({ dataDir: dir, mongodbUrl });
        try {
          return await Promise.all(
            [1, 2, 3].map(async () => {
              const account = await accounts.createAccount(`u${newId()}`);
              return { accountId: account.id, token: await accounts.createToken(account.id, ['read:filters', 'write:filters']) };
            }),
          );
        } finally {
          await accounts.close();
        }
      },
      openEvents: () => EsdbEventStore.connect(eventStoreUrl),
    });
  });
});
