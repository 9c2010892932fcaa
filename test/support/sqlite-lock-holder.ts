import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;

// Another process, as the CLI or a second server would be: it takes the write lock and keeps it until told.
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 10000');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
`;

export interface HeldLock {
  /** Ends the transaction and the process; resolves once it has exited. */
  release(): Promise<void>;
}

/** A second process holding `BEGIN IMMEDIATE` on the SQLite file at `path`; resolves once it holds it. */
export async function holdWriteLock(path: string): Promise<HeldLock> {
  const child = spawn(process.execPath, ['-e', HOLDER, path], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    exited.then(([code]) => Promise.reject(new Error(`lock holder exited with ${String(code)}`))),
  ])) as [string];
  if (first !== 'locked') throw new Error(`lock holder said ${first}`);
  return {
    async release() {
      child.stdin.end('release\n');
      await exited;
    },
  };
}
