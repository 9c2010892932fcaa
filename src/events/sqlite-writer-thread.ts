import { parentPort, workerData } from 'node:worker_threads';
import { SqliteAppender } from './sqlite-append.ts';
import { describeFailure, type EncodedAppend, type WriterReply, type WriterRequest } from './sqlite-writer-protocol.ts';

/**
 * The event store's writer thread: it owns the write connection, so waiting for a lock and the fsync of
 * each group happen here, never on the event loop that serves requests. One request at a time, in order.
 * The file is opened on first use and again after a failure to open it (a full or read-only disk at
 * start), so the thread outlives what the file goes through.
 */
const path = (workerData as { path: string }).path;
let appender: SqliteAppender | null = null;

const isText = (value: unknown): value is string => typeof value === 'string';
const isExpected = (value: unknown): boolean => typeof value === 'bigint' || value === 'no_stream' || value === 'stream_exists' || value === 'any';

/** One stream's part of an append; `alongside` is one level deep, on another stream. */
function wellFormedPart(append: Partial<EncodedAppend> | null, nested: boolean): boolean {
  if (!append || !isText(append.streamName) || !isExpected(append.expected) || !Array.isArray(append.events)) return false;
  if (append.alongside !== undefined) {
    if (nested || !wellFormedPart(append.alongside, true) || append.alongside.streamName === append.streamName) return false;
  }
  return (
    append.events.length > 0 &&
    append.events.every(
      (e: Partial<EncodedEvent> | null) => !!e && (e.id === undefined || isText(e.id)) && isText(e.type) && isText(e.data) && isText(e.metadata),
    )
  );
}

/** Messages come from our own process, but a malformed one must fail its request, not the thread. */
function wellFormed(appends: unknown): appends is readonly EncodedAppend[] {
  if (!Array.isArray(appends) || appends.length === 0) return false;
  return appends.every((append: Partial<EncodedAppend> | null) => wellFormedPart(append, false));
}

type EncodedEvent = EncodedAppend['events'][number];

function handle(request: WriterRequest): WriterReply {
  const id = request.id;
  try {
    if (request.kind === 'close') {
      appender?.close();
      appender = null;
      return { kind: 'closed', id };
    }
    appender ??= new SqliteAppender(path);
    if (request.kind === 'probe') return { kind: 'probed', id, failure: appender.probe() };
    if (request.kind !== 'append' || !wellFormed(request.appends)) {
      return { kind: 'failed', id, failure: { kind: 'failed', message: 'malformed request to the event store writer', code: null } };
    }
    return { kind: 'appended', id, outcomes: appender.append(request.appends) };
  } catch (error) {
    return { kind: 'failed', id, failure: describeFailure(error) };
  }
}

parentPort!.on('message', (request: WriterRequest) => {
  const id = typeof (request as { id?: unknown } | null)?.id === 'number' ? request.id : -1;
  let reply: WriterReply;
  try {
    reply = handle(request);
  } catch (error) {
    reply = { kind: 'failed', id, failure: describeFailure(error) };
  }
  parentPort!.postMessage(reply);
});
