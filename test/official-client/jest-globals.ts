/**
 * The few jest globals EventStore-Client-NodeJS's tests use, on mocha: test/beforeAll/afterAll, `each`
 * tables, `expect` (jest's own package) and jest.fn/spyOn (jest-mock). Each copied test file calls
 * `installJestGlobals()` first (test/official-client/run.ts adds the call), since mocha gives every
 * file its own `describe` and `it`.
 */
import { expect } from 'expect';
import { ModuleMocker } from 'jest-mock';

const mocker = new ModuleMocker(globalThis);

/** jest's `%s`/`%i`/`%d`/`%p`/`%j` placeholders and `$name` fields, filled from one row of the table. */
function title(template: string, args: readonly unknown[]): string {
  let next = 0;
  const filled = template.replace(/%[sidpjo]/g, () => {
    const value = args[next++];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  const first = args[0];
  return typeof first === 'object' && first !== null ? filled.replace(/\$(\w+)/g, (_, key: string) => String((first as Record<string, unknown>)[key])) : filled;
}

type Define = (name: string, fn: (this: Mocha.Context) => unknown) => unknown;

/** jest's tagged-template table: a header row of names, then the values, row after row. */
function rowsOf(table: readonly unknown[], values: readonly unknown[]): readonly unknown[] {
  if (!('raw' in table)) return table;
  const names = String(table[0])
    .split('|')
    .map((name) => name.trim())
    .filter(Boolean);
  const rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < values.length; i += names.length) rows.push(Object.fromEntries(names.map((name, j) => [name, values[i + j]])));
  return rows;
}

function eachOf(define: Define) {
  return (table: readonly unknown[], ...values: unknown[]) =>
    (name: string, fn: (...args: unknown[]) => unknown, timeout?: number): void => {
      for (const row of rowsOf(table, values)) {
        const args = Array.isArray(row) ? row : [row];
        define(title(name, args), function (this: Mocha.Context) {
          if (timeout) this.timeout(timeout);
          return fn(...args);
        });
      }
    };
}

export function installJestGlobals(): void {
  const globals = globalThis as unknown as Record<string, unknown>;
  const test = Object.assign((name: string, fn: Mocha.Func, timeout?: number) => it(name, fn).timeout(timeout ?? 60_000), {
    skip: it.skip,
    only: it.only,
    each: eachOf(it as unknown as Define),
  });
  Object.assign(describe, { each: eachOf(describe as unknown as Define) });
  Object.assign(it, { each: eachOf(it as unknown as Define) });
  globals.test = test;
  globals.beforeAll = (fn: Mocha.Func) => before(fn);
  globals.afterAll = (fn: Mocha.Func) => after(fn);
  globals.expect = expect;
  globals.jest = { fn: mocker.fn.bind(mocker), spyOn: mocker.spyOn.bind(mocker), setTimeout: () => {} };
}
