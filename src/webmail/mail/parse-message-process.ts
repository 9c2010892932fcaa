import { parseMail } from './parsed-message.ts';

/**
 * The parser process (message-parser.ts): one raw message in, in pieces ending with the end mark, what
 * the reader shows (or why not) out.
 */
const END_OF_SOURCE = 'end';
const LARGE_BYTES = 1024 * 1024;
const reply = (message: unknown) => process.send!(message);
let pieces: Buffer[] = [];

process.on('message', (piece: Uint8Array | typeof END_OF_SOURCE) => {
  if (piece !== END_OF_SOURCE) {
    pieces.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    return;
  }
  const raw = Buffer.concat(pieces);
  pieces = [];
  void parseMail(raw)
    .then(
      (parsed) => reply({ parsed }),
      (error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }),
    )
    // A large message grew the heap: give it back now rather than hold it while idle.
    .then(() => {
      if (raw.length > LARGE_BYTES) (globalThis as { gc?: () => void }).gc?.();
    });
});
// Loaded and listening: the parent starts the parse's clock from here.
reply({ ready: true });
// The service is gone (or let it go): nothing is left to parse for.
process.on('disconnect', () => process.exit(0));
