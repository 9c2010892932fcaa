import { parentPort } from 'node:worker_threads';
import { parseMail } from './parsed-message.ts';

/** The parser thread (message-parser.ts): one raw message in, what the reader shows (or why not) out. */
parentPort!.on('message', (raw: Uint8Array) => {
  parseMail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).then(
    (parsed) => parentPort!.postMessage({ parsed }),
    (error: unknown) => parentPort!.postMessage({ failed: error instanceof Error ? error.message : String(error) }),
  );
});
