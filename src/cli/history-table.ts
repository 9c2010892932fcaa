import type { RecordedEvent } from '../events/event-store.ts';

/**
 * Column widths are fixed, since the history is printed as it is read: a column's width cannot wait for
 * its longest value. Longer values are cut with an ellipsis, except positions, which are never cut
 * (an EventStoreDB position has up to 39 digits, so that store gets a wider column).
 */
const TIME = 24;
const STREAM = 26;
const TYPE = 22;
const SUMMARY = 60;

/** Control characters (C0, DEL, C1) would let stored text move a terminal's cursor or change its colours. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const visible = (text: string): string => text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Cuts to `width` characters (code points, so no surrogate pair is split), the last one an ellipsis. */
function fit(text: string, width: number): string {
  const chars = Array.from(visible(text));
  const cut = chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : chars.join('');
  return cut + ' '.repeat(Math.max(0, width - Array.from(cut).length));
}

type Data = Record<string, unknown>;
const quoted = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.slice(0, SUMMARY * 2)) : '?');
const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

/** Who caused an account fact (account-events.ts), as a word and an id. */
function actorOf(actor: unknown): string {
  const { kind, accountId, appId } = (actor ?? {}) as Data;
  if (kind === 'user') return `user ${String(accountId)}`;
  if (kind === 'app') return `app ${String(appId)}`;
  return typeof kind === 'string' ? kind : '?';
}

/** What an auditor recognises an event by, in a few words; the JSON lines carry everything. */
function summaryOf(event: RecordedEvent): string {
  const data = (event.data ?? {}) as Data;
  switch (event.type) {
    case 'FilterCreated':
      return `${quoted(data.title)} for account ${String(data.accountId)}`;
    case 'FilterUpdated':
      return `${quoted(data.title)}, ${String(data.action)}`;
    case 'KeywordsUpdated':
      return Array.isArray(data.keywords)
        ? `keywords replaced: ${count(data.keywords)}`
        : `keywords +${count(data.added)} ~${count(data.changed)} -${count(data.removed)}`;
    case 'StatusFiltered':
    case 'StatusUnfiltered':
      return `status ${String(data.statusId)}`;
    case 'FilterDeleted':
      return '';
    case 'TokenIssued':
    case 'TokenRevoked':
      return `token ${String(data.tokenId)} by ${actorOf(data.actor)}`;
    case 'AppAuthorized':
      return `app ${quoted(data.appName)} (${String(data.appId)}) ${String(data.scopes)}`;
    case 'AccountCreated':
    case 'PasswordChanged':
    case 'WebmailSignInSucceeded':
    case 'WebmailSignInFailed':
      return `by ${actorOf(data.actor)}${typeof data.clientAddress === 'string' ? ` from ${data.clientAddress}` : ''}`;
    default:
      return JSON.stringify(event.data) ?? '';
  }
}

export interface HistoryTable {
  readonly header: string;
  row(event: RecordedEvent): string;
}

/** A readable table for a terminal: time, position, stream, type and a short summary, one event a row. */
export function historyTable(positionWidth: number): HistoryTable {
  const line = (time: string, position: string, stream: string, type: string, summary: string) =>
    `${fit(time, TIME)} ${position.padStart(positionWidth)}  ${fit(stream, STREAM)} ${fit(type, TYPE)} ${fit(summary, SUMMARY)}`.trimEnd();
  return {
    header: line('time', 'position', 'stream', 'type', 'summary'),
    row: (event) => line(event.recordedAt, event.position.toString(), event.streamName, event.type, summaryOf(event)),
  };
}
