import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

/**
 * A fresh directory per call (no shared clean-up between tests), inside one temporary root per test
 * process, which one exit hook removes.
 */
export function scratchDir(prefix = 'dir-'): string {
  if (root === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'cf-test-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    root = made;
  }
  return mkdtempSync(join(root, prefix));
}
