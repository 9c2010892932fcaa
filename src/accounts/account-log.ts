import { v5 as uuidv5 } from 'uuid';
import type { EventStore } from '../events/event-store.ts';
import { ACCOUNT_EVENT_VERSIONS, accountEventsStream, type AccountEvent, type AccountEventMetadata, type AccountEventSource } from './account-events.ts';

/** The namespace of account event ids (a fixed random UUID): ids derive from the fact they record. */
const EVENT_ID_NAMESPACE = '3d4f6a52-8e0b-4c57-9a53-0f7f2b7f6a11';

/** Where and why an account fact was recorded. */
export interface RecordContext {
  readonly requestId: string;
  readonly source: AccountEventSource;
}

/**
 * The account fact was done in its store but could not be written to the log. Callers fail the action
 * loudly (an `error:` line, a 503) rather than acknowledge what the log does not show.
 */
export class AccountLogError extends Error {
  override readonly name = 'AccountLogError';
}

/**
 * What makes one fact one event: a token is issued and revoked once, an account created once; any
 * other fact once per request. The same fact appended twice (a client's retry of the append) is then
 * the same event id, which both event stores store once.
 */
function factKey(event: AccountEvent, requestId: string): string {
  switch (event.type) {
    case 'AccountCreated':
      return event.data.accountId;
    case 'TokenIssued':
    case 'TokenRevoked':
      return event.data.tokenId;
    default:
      return requestId;
  }
}

export function accountEventId(event: AccountEvent, requestId: string): string {
  return uuidv5(`${accountEventsStream(event.data.accountId)}:${event.type}:${factKey(event, requestId)}`, EVENT_ID_NAMESPACE);
}

/**
 * Appends account facts to `account-<accountId>`. The order every caller keeps (docs/auditing.md): do
 * the action in its store, then record it here, then acknowledge it; when the record fails, undo what
 * can be undone (a token never shown is revoked again) and fail the action. So whatever was
 * acknowledged is in the log. No expected revision: the stream protects no rule, it only tells.
 */
export class AccountLog {
  constructor(private readonly events: EventStore) {}

  async record(event: AccountEvent, context: RecordContext): Promise<void> {
    const metadata: AccountEventMetadata = {
      accountId: event.data.accountId,
      requestId: context.requestId,
      source: context.source,
      commitIndex: 0,
      commitSize: 1,
      schemaVersion: ACCOUNT_EVENT_VERSIONS[event.type],
    };
    try {
      await this.events.appendToStream(
        accountEventsStream(event.data.accountId),
        [{ id: accountEventId(event, context.requestId), type: event.type, data: event.data, metadata }],
        'any',
      );
    } catch (error) {
      throw new AccountLogError(`the event log could not record ${event.type} for account ${event.data.accountId}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
