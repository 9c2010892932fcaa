import { resolve } from 'node:path';

/**
 * A path the user typed, resolved where they typed it. `npm run cli -- ...` runs the CLI in the
 * package's directory, whatever directory it was started from, and says which one that was in
 * INIT_CWD (npm's run-script), so `--output alice.jsonl` lands beside the user and not in the checkout.
 */
export function userPath(path: string): string {
  return resolve(process.env.INIT_CWD || process.cwd(), path);
}
