/** stdout's reader went away (`content-filters events | head -1`): the command stops, quietly. */
export class OutputClosedError extends Error {
  override readonly name = 'OutputClosedError';
}

let closed = false;

/**
 * Without an 'error' listener a closed pipe crashes the process with "Unhandled 'error' event ... EPIPE".
 * With it, the next writeLine throws OutputClosedError, so a command unwinds and closes its stores.
 */
export function watchStdout(stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
}

/** Writes a line, waiting when stdout is a slow pipe, so a long history never piles up in memory. */
export function writeLine(line: string, stdout: NodeJS.WriteStream = process.stdout): Promise<void> {
  return writeText(`${line}\n`, stdout);
}

/** Writes text (whole lines) to stdout or a file, waiting while the reader is behind. */
export async function writeText(text: string, stdout: NodeJS.WritableStream = process.stdout): Promise<void> {
  if (closed) throw new OutputClosedError();
  if (!stdout.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        stdout.off('drain', done);
        stdout.off('close', done);
        resolve();
      };
      stdout.once('drain', done);
      stdout.once('close', done);
    });
  }
  if (closed) throw new OutputClosedError();
}
