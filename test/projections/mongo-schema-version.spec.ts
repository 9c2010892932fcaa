import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Long, MongoClient } from 'mongodb';
import { mongoReadModelsSchema } from '../../src/projections/stores/mongo-read-models-schema.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { SCHEMA_VERSIONS } from '../../src/shared/mongo-migrations.ts';
import { latestVersion, SchemaTooNewError } from '../../src/shared/schema-migrations.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';

type AnyDoc = { _id: string } & Record<string, unknown>;

/** Runs against the wire-protocol stand-in (mockupdb + mongomock, not a real server), as CI does. */
describe('MongoDB read models record their schema version (against the stand-in)', function () {
  this.timeout(90_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  let client: MongoClient;

  before(async function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    client = await MongoClient.connect(standIn.url());
  });

  after(async () => {
    await client?.close();
  });

  const freshDatabase = () => `cf_${randomUUID().slice(0, 8)}`;
  const versionOf = async (database: string) =>
    (await client.db(database).collection<{ _id: string; version: number }>(SCHEMA_VERSIONS).findOne({ _id: 'read-models' }))?.version;

  it('writes the newest version into a new database', async () => {
    const database = freshDatabase();
    const store = await MongoReadStore.connect(standIn.url(), database);
    await store.close();
    assert.equal(await versionOf(database), latestVersion(mongoReadModelsSchema));
  });

  it('upgrades a database written before versions were recorded, keeping its pointer and checkpoint', async () => {
    const database = freshDatabase();
    const db = client.db(database);
    await db.collection<AnyDoc>('read_model_pointer').insertOne({ _id: 'read-models', current: 0, pending: null, next: 5 });
    await db.collection<AnyDoc>('checkpoints').insertOne({ _id: 'filters', position: Long.fromNumber(42) });
    assert.equal(await versionOf(database), undefined);

    const store = await MongoReadStore.connect(standIn.url(), database);
    try {
      assert.equal(await store.checkpoint('filters'), 42n);
      assert.equal(await store.createGeneration(), 5);
    } finally {
      await store.close();
    }
    assert.equal(await versionOf(database), latestVersion(mongoReadModelsSchema));
  });

  it('refuses a database a newer schema has written, with one clear error', async () => {
    const database = freshDatabase();
    const newer = latestVersion(mongoReadModelsSchema) + 1;
    await client.db(database).collection<AnyDoc>(SCHEMA_VERSIONS).insertOne({ _id: 'read-models', version: newer });
    await assert.rejects(MongoReadStore.connect(standIn.url(), database), (error: unknown) => {
      assert.ok(error instanceof SchemaTooNewError);
      assert.match(
        error.message,
        new RegExp(`MongoDB database ${database} \\(read-models\\) has schema version ${newer}, but this build knows versions up to ${newer - 1}`),
      );
      return true;
    });
    assert.equal(await versionOf(database), newer);
  });
});
