import { InvalidArgumentError } from 'commander';
import { parseLogPoint, type LogPoint } from '../events/log-point.ts';
import { isId } from '../shared/ids.ts';
import { CliError } from './cli-error.ts';

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

/**
 * `--type A --type B` or `--type A,B`: the set of event types wanted. A name no event can have is
 * refused with the known ones, since it would otherwise print an empty history as if nothing happened.
 */
export function eventTypesArgument(known: readonly string[]) {
  return (value: string, previous: ReadonlySet<string> | undefined): ReadonlySet<string> => {
    const names = value.split(',').map((name) => name.trim());
    for (const name of names) {
      if (!known.includes(name)) {
        const shown = name.length > 60 ? `${name.slice(0, 60)}…` : name;
        // Not commander's InvalidArgumentError: its message repeats the whole value, however long.
        throw new CliError(`--type: unknown event type ${JSON.stringify(shown)}; known types: ${known.join(', ')}`);
      }
    }
    return new Set([...(previous ?? []), ...names]);
  };
}
