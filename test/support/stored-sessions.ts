import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { StoreLocation } from './store-locations.ts';
import { tableRows } from './sqlite-rows.ts';

/**
 * Every session and compose ID as stored, read from the file or the database itself (not through the
 * adapters): what another local user, or a backup's reader, would find there.
 */
export async function storedSessionData(location: StoreLocation): Promise<unknown> {
  if (!location.mongodbUrl) {
    const rows = tableRows(join(location.dataDir, 'webmail-sessions.sqlite'));
    return { sessions: rows.webmail_sessions, compose: rows.webmail_compose };
  }
  const client = await MongoClient.connect(location.mongodbUrl);
  try {
    const db = client.db(location.mongoDatabase);
    return { sessions: await db.collection('webmail_sessions').find({}).toArray(), compose: await db.collection('webmail_compose').find({}).toArray() };
  } finally {
    await client.close();
  }
}
