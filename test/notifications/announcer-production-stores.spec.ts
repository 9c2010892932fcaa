import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { byAccount, increasing, streamContents } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

// The announcer on the production adapters: events in the EventStoreDB gRPC protocol STAND-IN, read
// models and the announcer's checkpoint in the MongoDB wire-protocol STAND-IN (neither is a server).
describe('Announcements on the EventStoreDB and MongoDB stand-ins (not servers)', function () {
  this.timeout(90_000);
  const missing = standInMissing() ?? natsServerMissing();
  const mongo = mongoStandIn(missing);
  let esdb: EsdbStandIn;
  let nats: OwnNatsServer;
  const services: RunningService[] = [];

  before(async function () {
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    esdb = await EsdbStandIn.start();
    nats = await OwnNatsServer.start();
  });
  // Before the stand-ins' own `after` hooks stop them.
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  });
  after(async () => {
    await esdb?.stop();
    await nats?.stop();
  });

  it('loses nothing across a NATS outage and a restart, and puts each change in the stream once; the checkpoint lives in MongoDB', async () => {
    const database = `cf_${randomUUID().slice(0, 8)}`;
    const mongodbUrl = mongo.url().replace('/?', `/${database}?`);
    const env = {
      DATA_DIR: scratchDir(),
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMITS: 'off',
      EVENTSTORE_URL: esdb.url,
      MONGODB_URL: mongodbUrl,
      NATS_URL: nats.url,
    };
    const start = async () => {
      const service = await startService({ config: loadConfig(env), logger: silentLogger, env });
      services.push(service);
      return service;
    };
    const first = await start();
    const account = await first.stores.accounts.createAccount(`u${randomUUID().slice(0, 8)}`);
    const token = await first.stores.accounts.createToken(account.id, ['read:filters', 'write:filters']);
    assert.equal((await filtersApi(first.url, token).post('/api/v2/filters', newFilter('before'))).status, 200);
    await streamContents(nats.url, 1);

    await nats.stop();
    for (const title of ['during 1', 'during 2']) assert.equal((await filtersApi(first.url, token).post('/api/v2/filters', newFilter(title))).status, 200);
    await first.close();
    services.splice(services.indexOf(first), 1);
    const second = await start();
    assert.equal((await filtersApi(second.url, token).post('/api/v2/filters', newFilter('after'))).status, 200);
    await nats.resume();

    const stream = await streamContents(nats.url, 4);
    const { positions, duplicates } = byAccount(stream);
    assert.deepEqual(duplicates, []);
    assert.equal(positions.get(account.id)?.length, 4);
    assert.ok(increasing(positions.get(account.id)!));
    const client = await MongoClient.connect(mongo.url());
    try {
      const positionsStored = client.db(database).collection<{ _id: string; position: string }>('announced_positions');
      const stored = async () => (await positionsStored.findOne({ _id: 'nats' }))?.position;
      // Stored once the page the last publish belonged to is done.
      await waitUntil(async () => BigInt((await stored()) ?? '0') >= positions.get(account.id)!.at(-1)!, 'the checkpoint stored in MongoDB');
    } finally {
      await client.close();
    }
  });
});
