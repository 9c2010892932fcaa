import { MongoServerError, type Db } from 'mongodb';
import { latestVersion, pendingSteps, type MigrationStep, type SchemaHistory } from './schema-migrations.ts';

/**
 * A MongoDB database's schema history; its version is a document in `schema_versions` (`_id`: the
 * history's name). MongoDB has no transaction around index builds, and several processes may connect at
 * once, so every step must be safe to run twice (create-if-missing, `$setOnInsert`, guarded updates).
 */
export type MongoSchema = SchemaHistory<Db, Promise<void>>;
export type MongoStep = MigrationStep<Db, Promise<void>>;

export const SCHEMA_VERSIONS = 'schema_versions';
const DUPLICATE_KEY = 11000;

interface VersionDoc {
  _id: string;
  version: number;
}

/** Brings a database up to the newest version of `schema`, or refuses it (SchemaTooNewError) when newer. */
export async function migrateMongo(db: Db, schema: MongoSchema): Promise<{ from: number; to: number }> {
  const versions = db.collection<VersionDoc>(SCHEMA_VERSIONS);
  const found = await versions.findOne({ _id: schema.name });
  const from = found?.version ?? 0;
  for (const step of pendingSteps(schema, from, `MongoDB database ${db.databaseName} (${schema.name})`)) {
    await step.up(db);
    await recordVersion(db, schema.name, step.version);
  }
  return { from, to: latestVersion(schema) };
}

/** The version only moves forward: a process that finished a step later never lowers it. */
async function recordVersion(db: Db, name: string, version: number): Promise<void> {
  try {
    await db.collection<VersionDoc>(SCHEMA_VERSIONS).updateOne({ _id: name, version: { $lt: version } }, { $set: { version } }, { upsert: true });
  } catch (error) {
    // The guard found the version already at or past this step, and the insert met that document.
    if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
  }
}
