import type { RecordedEvent } from './event-store.ts';

/** A moment in the log, as an auditor names it: a global position, or a wall-clock time. */
export type LogPoint = { readonly position: bigint } | { readonly time: Date };

/**
 * Digits are a position (up to 39 of them: an EventStoreDB position packs commit and prepare into up to
 * 128 bits); anything else must be an ISO-8601 time, UTC unless it names a zone. Null when it is neither.
 */
export function parseLogPoint(text: string): LogPoint | null {
  const value = text.trim();
  if (/^[0-9]{1,39}$/.test(value)) return { position: BigInt(value) };
  const parts = /^(\d{4}-\d{2}-\d{2})(?:[T ]([0-9:.]+)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (!parts) return null;
  // A time without a zone is UTC, as a date alone is: never the zone of whoever runs the command.
  const [, date, clock, zone] = parts;
  const time = new Date(clock === undefined ? date! : `${date}T${clock}${zone ?? 'Z'}`);
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
