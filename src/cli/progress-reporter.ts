import { END_OF_LOG, type FillProgress } from '../projections/runtime/fill-generation.ts';

const BAR_WIDTH = 30;
const TTY_EVERY_MS = 100;
const PLAIN_EVERY_MS = 1000;

const fraction = (p: FillProgress, start: bigint): number => {
  const span = p.upTo - start;
  return span <= 0n ? 1 : Math.min(1, Number(p.position - start) / Number(span));
};

/**
 * Rebuild progress on stderr: a bar redrawn in place on a terminal, plain lines (one a second) when
 * stderr is a file or a pipe. Positions, not counts, give the fraction: EventStoreDB's are byte offsets.
 */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let start: bigint | null = null;
  let last = 0;
  const line = (p: FillProgress) => {
    const rate = Math.round(p.events / Math.max(0.001, (Date.now() - started) / 1000));
    return { percent: Math.floor(fraction(p, start ?? 0n) * 100), rate };
  };
  return {
    update(p: FillProgress): void {
      start ??= p.position - BigInt(p.events);
      const now = Date.now();
      if (now - last < (stream.isTTY ? TTY_EVERY_MS : PLAIN_EVERY_MS) && p.position < p.upTo) return;
      last = now;
      const { percent, rate } = line(p);
      // A whole-log rebuild does not know where the log ends: it counts events only.
      if (p.upTo === END_OF_LOG) {
        stream.write(`${stream.isTTY ? '\r' : ''}rebuild: ${p.events} events, ${rate} events/s${stream.isTTY ? '' : '\n'}`);
        return;
      }
      if (stream.isTTY) {
        const filled = Math.round((percent / 100) * BAR_WIDTH);
        stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent}% ${p.events} events ${rate} events/s`);
      } else {
        stream.write(`rebuild: ${percent}% (${p.events} events, ${rate} events/s)\n`);
      }
    },
    done(): void {
      if (stream.isTTY && last > 0) stream.write('\n');
    },
  };
}
