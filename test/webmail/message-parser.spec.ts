import assert from 'node:assert/strict';
import { MessageParser, type ParserLimits } from '../../src/webmail/mail/message-parser.ts';
import { READING_LIMITS } from '../../src/webmail/mail/reading-limits.ts';
import { hugeHtml } from '../support/hostile-mails.ts';

const plain = (text: string) => Buffer.from(`From: a@example.org\r\nTo: b@example.org\r\nSubject: plain\r\n\r\n${text}\r\n`);

describe('the message parsers (the bounds of reading one message)', function () {
  this.timeout(60_000);
  const parsers: MessageParser[] = [];
  const parser = (limits: Partial<ParserLimits> = {}) => {
    const made = new MessageParser({ ...READING_LIMITS, ...limits });
    parsers.push(made);
    return made;
  };
  after(async () => {
    await Promise.all(parsers.map((made) => made.close()));
  });

  it('parses in a child process and keeps it for the next message', async () => {
    const threads = parser();
    for (const text of ['first text', 'second text']) {
      const outcome = await threads.parse(100, async () => plain(text));
      assert.ok('parsed' in outcome);
      assert.equal(outcome.parsed.body.trim(), text);
    }
  });

  // On Node 24 this message, parsed in a worker thread with the same heap, aborted the whole process.
  it('makes a message that fills the parser’s heap unreadable, and the next message still parses', async () => {
    const threads = parser({ parserHeapMb: 32 });
    const outcome = await threads.parse(24 * 2 ** 20, async () => hugeHtml('b@example.org', 24 * 2 ** 20).raw);
    assert.deepEqual(outcome, { unreadable: 'the parser ran out of memory (SIGABRT)' });
    const next = await threads.parse(100, async () => plain('after the crash'));
    assert.ok('parsed' in next && next.parsed.body.includes('after the crash'), JSON.stringify(next));
  });

  it('makes a message whose parse runs past the time limit unreadable', async () => {
    const threads = parser({ parseMs: 1 });
    const outcome = await threads.parse(24 * 2 ** 20, async () => hugeHtml('b@example.org', 24 * 2 ** 20).raw);
    assert.deepEqual(outcome, { unreadable: 'parsing took over 1 ms' });
  });

  it('parses a source that arrives in pieces as it would the whole, pieces split anywhere', async () => {
    const threads = parser();
    const raw = plain('text in pieces, split inside a word');
    const outcome = await threads.parse(raw.length, async () =>
      (async function* () {
        for (let at = 0; at < raw.length; at += 7) yield raw.subarray(at, at + 7);
      })(),
    );
    assert.ok('parsed' in outcome, JSON.stringify(outcome));
    assert.equal(outcome.parsed.body.trim(), 'text in pieces, split inside a word');
  });

  it('reads an endless source no further than the source bound, and parses what it read', async () => {
    const threads = parser({ sourceBytes: 3 * 2 ** 20 });
    let read = 0;
    const line = Buffer.from(`${'x'.repeat(1022)}\r\n`);
    const outcome = await threads.parse(2 ** 30, async () =>
      (async function* () {
        yield plain('');
        for (;;) {
          read += 64 * 1024;
          yield Buffer.concat(Array.from({ length: 64 }, () => line));
        }
      })(),
    );
    assert.ok('parsed' in outcome, JSON.stringify(outcome));
    assert.ok(read <= 3 * 2 ** 20 + 64 * 1024, `${read} bytes read`);
  });

  it('rejects with the error of a source that fails midway, and the next message parses', async () => {
    const threads = parser({ parsers: 1 });
    const failing = threads.parse(2 ** 20, async () =>
      (async function* () {
        yield Buffer.from('From: a@example.org\r\nSubject: cut short\r\n');
        throw new Error('the server went away');
      })(),
    );
    await assert.rejects(failing, /the server went away/);
    // The parser that held the first part of it is not the one that reads the next message.
    const next = await threads.parse(100, async () => plain('after the failed fetch'));
    assert.ok('parsed' in next, JSON.stringify(next));
    assert.equal(next.parsed.subject, 'plain');
    assert.equal(next.parsed.body.trim(), 'after the failed fetch');
  });

  it('fetches no more sources at once than fit the bytes in flight (a larger one alone)', async () => {
    const threads = parser({ bytesInFlight: 3 * 2 ** 20 });
    let fetching = 0;
    let most = 0;
    const fetch = async () => {
      most = Math.max(most, (fetching += 1));
      await new Promise((resolve) => setImmediate(resolve));
      fetching -= 1;
      return plain('x');
    };
    await Promise.all(Array.from({ length: 6 }, () => threads.parse(2 ** 20, fetch)));
    assert.equal(most, 3);
    most = 0;
    await Promise.all(Array.from({ length: 3 }, () => threads.parse(5 * 2 ** 20, fetch)));
    assert.equal(most, 1);
  });
});
