import type { ChildProcess } from 'node:child_process';
import { startProcessBeside } from '../../shared/start-process.ts';
import { WeightedTurns } from '../../shared/weighted-turns.ts';
import type { ParsedMail } from './parsed-message.ts';
import { READING_LIMITS } from './reading-limits.ts';

/** A message's source: whole, or the pieces the mail server sends, in order (a download stream). */
export type MessageSource = Uint8Array | AsyncIterable<Uint8Array>;

/** A message's parse: what the reader shows, or why it cannot show it (the message's fault, not the server's). */
export type ParseOutcome = { readonly parsed: ParsedMail } | { readonly unreadable: string };

/** What bounds the parsers and the sources in flight (READING_LIMITS; a test may set its own). */
export type ParserLimits = { readonly [K in 'sourceBytes' | 'parserHeapMb' | 'parseMs' | 'parsers' | 'bytesInFlight']: number };

type Reply = { readonly parsed: ParsedMail } | { readonly failed: string };

/** A parser process, and whether it has loaded the parser and is listening (it says so once). */
type Parser = { readonly child: ChildProcess; ready: boolean };

const MIN_WEIGHT = 64 * 1024;
/** A source crosses to its parser in pieces of this size, then this mark (parse-message-process.ts). */
const PIECE_BYTES = 1024 * 1024;
const END_OF_SOURCE = 'end';
/** Pieces sent to a parser and not yet in the pipe, at most. */
const PIECES_IN_FLIGHT = 4;

/**
 * Parses messages in child processes, so no message stalls the event loop or takes the service down:
 * each parse runs in a process with a capped heap and a time limit, parsers are few, and sources being
 * fetched or parsed at once are bounded in bytes (the fetch waits its turn before it holds any), so memory
 * stays bounded whatever arrives at once.
 * Processes, not worker threads: a thread past its heap limit is ended only when the allocation that
 * crossed it fits Node's 16 MB of leeway (`Worker::NearHeapLimit`, src/node_worker.cc); a larger one (a
 * 24 MB HTML body as one string, on Node 24) aborts the whole process. A parser that runs out of memory or
 * time ends alone, and the message is unreadable; idle parsers are kept for the next message and do not
 * keep the service alive.
 */
export class MessageParser {
  private readonly idle: Parser[] = [];
  private closed = false;
  /** Sources fetched or being parsed, by their size. */
  private readonly bytes: WeightedTurns;
  /** Parses running at once: one process each. */
  private readonly running: WeightedTurns;

  constructor(private readonly limits: ParserLimits = READING_LIMITS) {
    this.bytes = new WeightedTurns(limits.bytesInFlight);
    this.running = new WeightedTurns(limits.parsers);
    // Started now, while the service is small: fork() copies the parent's page tables, so it holds the
    // event loop longer the larger the service has grown (15-25 ms at 400 MB), and never in a request.
    for (let count = 0; count < limits.parsers; count += 1) this.idle.push(this.startParser());
  }

  /**
   * Fetches (`fetch`, once `size` bytes fit the bound) and parses one message. The source may come whole
   * or as the pieces the mail server sends (a download stream), which go on to the parser as they arrive,
   * so the service never holds a large source at once. The fetch's own failure, also midway through the
   * pieces, rejects (the server's problem); anything the parse does resolves.
   */
  parse(size: number, fetch: () => Promise<MessageSource>): Promise<ParseOutcome> {
    const weight = Math.min(Math.max(size, MIN_WEIGHT), this.limits.sourceBytes);
    return this.bytes.run(weight, async () => {
      const source = await fetch();
      return this.running.run(1, () => this.inProcess(source));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map(({ child }) => ended(child)));
  }

  private async inProcess(source: MessageSource): Promise<ParseOutcome> {
    // A new parser is started in a turn of its own (fork() holds the event loop some 15-25 ms).
    if (this.idle.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const parser = this.idle.pop() ?? this.startParser();
    const { child } = parser;
    holdOpen(child, true);
    // The time limit is the parse's: a process starting on a busy machine is not the message's fault.
    const failed = await startFailure(parser);
    if (failed !== null) {
      await abandon(source);
      return { unreadable: failed };
    }
    return new Promise<ParseOutcome>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      // Aborted once the parse is settled; it ends the feed's wait for the pipe as well (a parser that
      // ended may never say its pieces went).
      const settled = new AbortController();
      const finish = (keep: boolean) => {
        settled.abort();
        clearTimeout(timer);
        child.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (keep) {
          holdOpen(child, false);
          this.idle.push(parser);
          return;
        }
        child.kill('SIGKILL');
        // Its successor starts now, not when the next message waits for it (seconds on a busy machine),
        // in a turn of its own: fork() holds the event loop some 15-25 ms.
        setImmediate(() => {
          if (!this.closed && this.idle.length < this.limits.parsers) this.idle.push(this.startParser());
        });
      };
      const done = (outcome: ParseOutcome, keep: boolean) => {
        if (settled.signal.aborted) return;
        finish(keep);
        resolve(outcome);
      };
      // A parser is kept (it collects its garbage after a large message, parse-message-process.ts) and
      // replaced only when it ends or runs out of time, or holds part of a source the server stopped sending.
      const onMessage = (reply: Reply) => done('parsed' in reply ? { parsed: reply.parsed } : { unreadable: reply.failed }, true);
      const onError = (error: Error) => done({ unreadable: `the parser failed: ${error.message}` }, false);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => done({ unreadable: endedWhy(code, signal) }, false);
      child.on('message', onMessage).on('error', onError).on('exit', onExit);
      feed(child, source, this.limits.sourceBytes, settled.signal, onError).then(
        () => {
          if (settled.signal.aborted) return;
          child.send(END_OF_SOURCE, (error: Error | null) => {
            if (error) onError(error);
          });
          timer = setTimeout(() => done({ unreadable: `parsing took over ${this.limits.parseMs} ms` }, false), this.limits.parseMs);
        },
        (error: unknown) => {
          if (settled.signal.aborted) return;
          finish(false);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private startParser(): Parser {
    const heap = [`--max-old-space-size=${this.limits.parserHeapMb}`, '--max-semi-space-size=16', '--expose-gc'];
    // Its output is V8's own (a heap report when it runs out of memory), not the service's log lines.
    const child = startProcessBeside(import.meta.url, 'parse-message-process', heap, { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    holdOpen(child, false);
    const parser: Parser = { child, ready: false };
    // A job's own listeners report what happens during it; these keep an idle parser's end from crashing us.
    child.on('error', () => {});
    child.on('exit', () => {
      const index = this.idle.indexOf(parser);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return parser;
  }
}

/** An idle parser neither keeps the service running nor is waited for by it. */
function holdOpen(child: ChildProcess, hold: boolean): void {
  const handles = [child, child.channel].filter((handle) => handle !== undefined && handle !== null);
  for (const handle of handles) {
    if (hold) handle.ref();
    else handle.unref();
  }
}

/**
 * Sends the source to the parser, at most `limit` bytes of it, in pieces of at most PIECE_BYTES, one per
 * turn of the event loop (serialising a 24 MB source at once held it for 70 ms). Up to PIECES_IN_FLIGHT
 * are queued without waiting for the parser to read the one before (a round trip per piece between two
 * processes is slow on a busy machine); past that the next waits until one has gone into the pipe, so the
 * service holds a few pieces of a source, never the whole of it. Stops early once `stopped` (the parser
 * ended), also while waiting for the pipe: leaving the loop ends a download stream.
 */
async function feed(child: ChildProcess, source: MessageSource, limit: number, stopped: AbortSignal, onError: (error: Error) => void): Promise<void> {
  let sent = 0;
  let inFlight = 0;
  let written: (() => void) | undefined;
  for await (const chunk of source instanceof Uint8Array ? [source] : source) {
    for (let at = 0; at < chunk.length && sent < limit; at += PIECE_BYTES) {
      if (inFlight >= PIECES_IN_FLIGHT && !stopped.aborted) {
        await new Promise<void>((resolve) => {
          const onAbort = () => resolve();
          stopped.addEventListener('abort', onAbort, { once: true });
          written = () => {
            stopped.removeEventListener('abort', onAbort);
            resolve();
          };
        });
      }
      if (stopped.aborted) return;
      const piece = chunk.subarray(at, Math.min(chunk.length, at + PIECE_BYTES, at + limit - sent));
      sent += piece.length;
      inFlight += 1;
      child.send(piece, (error: Error | null) => {
        inFlight -= 1;
        written?.();
        written = undefined;
        if (error) onError(error);
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (sent >= limit || stopped.aborted) return;
  }
}

/** A source no parser will read: a download stream is ended, so the connection is free again. */
async function abandon(source: MessageSource): Promise<void> {
  if (!(source instanceof Uint8Array)) await source[Symbol.asyncIterator]().return?.();
}

/** V8 aborts a process past its heap limit (SIGABRT): the usual reason a parser ends mid-parse. */
export function endedWhy(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGABRT') return 'the parser ran out of memory (SIGABRT)';
  return `the parser ended (${signal ?? `exit code ${String(code)}`})`;
}

/** Null once the parser is listening, or why it ended before it was. */
function startFailure(parser: Parser): Promise<string | null> {
  const { child } = parser;
  if (parser.ready) return Promise.resolve(null);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(endedWhy(child.exitCode, child.signalCode));
  return new Promise((resolve) => {
    const finish = (why: string | null) => {
      child.off('message', onReady).off('exit', onExit).off('error', onError);
      parser.ready = why === null;
      resolve(why);
    };
    const onReady = () => finish(null);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => finish(endedWhy(code, signal));
    const onError = (error: Error) => finish(`the parser failed: ${error.message}`);
    child.on('message', onReady).on('exit', onExit).on('error', onError);
  });
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
