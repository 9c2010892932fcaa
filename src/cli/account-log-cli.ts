import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { accountEventsStream, readAccountEvent, type AccountEvent, type Actor } from '../accounts/account-events.ts';
import { AccountLog, AccountLogError } from '../accounts/account-log.ts';
import type { Config } from '../config.ts';
import { storePath } from '../shared/store-files.ts';
import { openEventStore } from '../stores.ts';
import { CliError } from './cli-error.ts';

/** Whoever runs the CLI acts as the operator of the stores it opens. */
export const OPERATOR: Actor = { kind: 'operator' };

/** Records one account fact; `done` says what was done already, for the error line when it cannot be recorded. */
export type RecordFact = (event: AccountEvent, done: string) => Promise<void>;

/**
 * Runs `work` with the event log the server uses open, recording the account facts of this one CLI run
 * (one request id for all of them). A fact the log refuses ends the command with one `error:` line that
 * says what was done and that the log does not show it, and exit code 1: never an acknowledged action
 * missing from the log.
 */
export async function withAccountLog<T>(config: Config, work: (record: RecordFact) => Promise<T>): Promise<T> {
  const events = await openEventStore(config);
  const log = new AccountLog(events);
  const requestId = randomUUID();
  try {
    return await work(async (event, done) => {
      try {
        await log.record(event, { requestId, source: 'cli' });
      } catch (error) {
        if (error instanceof AccountLogError) throw new CliError(`${done}, but ${error.message}`);
        throw error;
      }
    });
  } finally {
    await events.close();
  }
}

/**
 * Who revoked each of the account's revoked tokens, from its account facts; empty when there is no event
 * log yet (nothing was ever recorded, and a reading command creates no file).
 */
export async function revokersOf(config: Config, accountId: string): Promise<ReadonlyMap<string, Actor>> {
  const revokers = new Map<string, Actor>();
  if (!config.eventStoreUrl && !existsSync(storePath(config.dataDir, 'events'))) return revokers;
  const events = await openEventStore(config);
  try {
    for (const stored of await events.readStream(accountEventsStream(accountId))) {
      const event = readAccountEvent(stored);
      if (event?.type === 'TokenRevoked') revokers.set(event.data.tokenId, event.data.actor);
    }
  } finally {
    await events.close();
  }
  return revokers;
}
