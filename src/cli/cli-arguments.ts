import { InvalidArgumentError } from 'commander';
import { parseLogPoint, type LogPoint } from '../events/log-point.ts';
import { isId } from '../shared/ids.ts';

/** Option parsers: a bad value stops the command with commander's usage error (exit 1). */
export function idArgument(value: string): string {
  if (!isId(value)) throw new InvalidArgumentError('an id is a string of digits');
  return value;
}

export function logPointArgument(value: string): LogPoint {
  const point = parseLogPoint(value);
  if (!point) throw new InvalidArgumentError('give a global position (digits) or an ISO-8601 time such as 2026-11-22T10:00:00Z');
  return point;
}

/** Whole milliseconds from 1 to 1 hour; `abc`, `-5` or `1.5` stop the command instead of meaning "no wait". */
export function millisecondsArgument(value: string): number {
  const ms = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > 3_600_000) throw new InvalidArgumentError('give whole milliseconds from 1 to 3600000, e.g. 30000');
  return ms;
}
