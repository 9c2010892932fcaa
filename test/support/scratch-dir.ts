import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.ts';

let root: string | undefined;

/** A fresh directory per call inside one temporary root per test process (so one exit hook in all). */
export function scratchDir(prefix = 'dir-'): string {
  root ??= tempDir('cf-scratch-');
  return mkdtempSync(join(root, prefix));
}
