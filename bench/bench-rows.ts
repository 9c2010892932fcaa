/** The one line format every bench prints and `npm run bench` collects. */
import { loadavg } from 'node:os';

export const ROW = /^.+?: ours .+, baseline .+, ratio .+$/;

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** `name: ours X, baseline Y, ratio Z (goal G)`. */
export const row = (name: string, ours: string, baseline: string, ratio: number, goal: string): string =>
  `${name}: ours ${ours}, baseline ${baseline}, ratio ${ratio.toFixed(2)} (goal ${goal})`;
