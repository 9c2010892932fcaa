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
