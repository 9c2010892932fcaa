import type { EventStore } from './event-store.ts';

/** Which events an export wants: one account's (the filter streams it owns), or the whole log. */
export interface HistoryTextQuery {
  readonly accountId?: string;
}

/**
 * What a store that keeps each event's data and metadata as JSON text can offer an export: the history
 * lines (`historyLine`'s shape, byte for byte) built around the stored text, so nothing is parsed and
 * serialised again. Chunks of whole lines, each ending with a newline, in position order; the caller
 * writes one before asking for the next, so at most one chunk is held.
 */
export interface HistoryText {
  historyText(query: HistoryTextQuery): Iterable<HistoryChunk>;
}

/** Whole lines, each ending with a newline, and how many events they are. */
export interface HistoryChunk {
  readonly text: string;
  readonly events: number;
}

export function hasHistoryText(store: EventStore): store is EventStore & HistoryText {
  return typeof (store as Partial<HistoryText>).historyText === 'function';
}

/** The columns a line is built from, in this order. */
export const HISTORY_TEXT_COLUMNS = 'events.type, events.stream, events.revision, events.position, events.recorded_at, events.data, events.metadata';

type TextColumns = [string, string, number | bigint, number | bigint, string, string, string];

/**
 * One line, as `historyLine` would print the event: the stored data and metadata are JSON.stringify's
 * own output (the writer stores nothing else), so they are that part of the line already.
 */
export function historyTextLine(row: unknown[]): string {
  const [type, stream, revision, position, time, data, metadata] = row as TextColumns;
  return `{"type":${JSON.stringify(type)},"stream":${JSON.stringify(stream)},"revision":${revision},"position":"${position}","time":${JSON.stringify(time)},"data":${data},"metadata":${metadata}}\n`;
}
