import assert from 'node:assert/strict';
import { TurnBatchedOutput } from '../../src/shared/turn-batched-output.ts';
import { runCommand } from '../support/run-cli.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A script run by its own Node process with the service's logger, for what happens at exit. */
const logging = async (body: string) => {
  const script = `const { createLogger } = await import('./src/shared/logger.ts'); const a = createLogger('info'); const b = createLogger('info'); ${body}`;
  return runCommand(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {});
};
const messages = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

describe('TurnBatchedOutput: the log lines of a turn written together, none lost at exit', () => {
  it('given lines written in one turn, when the turn ends, then the sink gets them as one write, in order', async () => {
    const writes: string[] = [];
    const output = new TurnBatchedOutput({ write: (text) => writes.push(text) });
    output.write('one\n');
    output.write('two\n');
    await Promise.resolve();
    output.write('three\n');
    assert.deepEqual(writes, [], 'nothing is written before the turn ends');
    await nextTurn();
    assert.deepEqual(writes, ['one\ntwo\nthree\n']);
    output.write('four\n');
    await nextTurn();
    assert.deepEqual(writes, ['one\ntwo\nthree\n', 'four\n']);
  });

  it('given lines pending, when flush is called, then they are written at once and not again', async () => {
    const writes: string[] = [];
    const output = new TurnBatchedOutput({ write: (text) => writes.push(text) });
    output.write('a\n');
    let called = false;
    output.flush(() => (called = true));
    assert.deepEqual(writes, ['a\n']);
    assert.ok(called);
    await nextTurn();
    assert.deepEqual(writes, ['a\n']);
  });

  it('given a turn that logs past 64 KiB, then what is pending is written at once, so one turn never holds more', () => {
    const writes: string[] = [];
    const output = new TurnBatchedOutput({ write: (text) => writes.push(text) });
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 200; i += 1) output.write(line);
    assert.ok(writes.length >= 3, `${writes.length} writes`);
    assert.ok(Math.max(...writes.map((w) => w.length)) <= 64 * 1024, 'a write held more than 64 KiB');
  });

  it('given a line logged, when the process calls process.exit(1) in the same turn, then the line is on stdout', async () => {
    const result = await logging("a.info('first'); b.fatal('cannot start'); process.exit(1);");
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(messages(result.stdout), ['first', 'cannot start']);
  });

  it('given a line logged, when an uncaught exception ends the process, then the line is on stdout', async () => {
    const result = await logging("a.info('before'); setImmediate(() => { b.warn('last'); throw new Error('boom'); });");
    assert.equal(result.code, 1);
    assert.deepEqual(messages(result.stdout), ['before', 'last']);
  });

  it('given two loggers writing in turn over many turns, then stdout has every line once, in the order written', async () => {
    const result = await logging(
      'for (let i = 0; i < 300; i += 1) { (i % 2 ? a : b).info(String(i)); if (i % 7 === 0) await new Promise((r) => setImmediate(r)); }',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      messages(result.stdout),
      Array.from({ length: 300 }, (_, i) => String(i)),
    );
  });
});
