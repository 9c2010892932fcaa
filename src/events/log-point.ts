import type { RecordedEvent } from './event-store.ts';

/** A moment in the log, as an auditor names it: a global position, or a wall-clock time. */
export type LogPoint = { readonly position: bigint } | { readonly time: Date };

/**
 * Digits are a position (up to 39 of them: an EventStoreDB position packs commit and prepare into up to
 * 128 bits); anything else must be an ISO-8601 time. Null when it is neither.
 */
export function parseLogPoint(text: string): LogPoint | null {
  const value = text.trim();
  if (/^[0-9]{1,39}$/.test(value)) return { position: BigInt(value) };
  if (!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : { time };
}

/** True when the event is part of the log as it stood at `point` (inclusive). */
export function isAtOrBefore(event: RecordedEvent, point: LogPoint): boolean {
  return 'position' in point ? event.position <= point.position : Date.parse(event.recordedAt) <= point.time.getTime();
}

/** True when the event came after `point`: after the position, or at or after the time. */
export function isSince(event: RecordedEvent, point: LogPoint): boolean {
  return 'position' in point ? event.position > point.position : Date.parse(event.recordedAt) >= point.time.getTime();
}
