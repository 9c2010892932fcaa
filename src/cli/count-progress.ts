const TTY_EVERY_MS = 100;
const PLAIN_EVERY_MS = 1000;

/**
 * Progress of a long read on stderr, counted in events: redrawn in place on a terminal, a plain line a
 * second into a file or a pipe, and a last line with the total and the rate when done.
 */
export function countProgress(what: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = process.hrtime.bigint();
  let events = 0;
  let last = 0;
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const rate = () => Math.round(events / Math.max(seconds(), 0.001));
  return {
    add(count: number): void {
      events += count;
      const now = Date.now();
      if (now - last < (stream.isTTY ? TTY_EVERY_MS : PLAIN_EVERY_MS)) return;
      if (last === 0) {
        last = now;
        return;
      }
      last = now;
      stream.write(`${stream.isTTY ? '\r' : ''}${what}: ${events} events, ${rate()} events/s${stream.isTTY ? '' : '\n'}`);
    },
    done(): void {
      stream.write(`${stream.isTTY && last > 0 ? '\r' : ''}${what}: ${events} events in ${seconds().toFixed(2)} s, ${rate()} events/s\n`);
    },
  };
}
