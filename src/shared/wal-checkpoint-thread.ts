import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The thread of `WalCheckpointer`: its own connection to the file, copying the write-ahead log back into
 * the database (and its fsync) whenever asked, so that this work never runs on the event loop. Each
 * request is answered once done.
 */
const db = new Database((workerData as { path: string }).path);
// A thread may wait for a lock without holding anything else up.
db.pragma('busy_timeout = 1000');

/**
 * Log pages past which the log is started over. A PASSIVE checkpoint copies what was there when it began,
 * and a writer starts the log over only when everything has been copied: under steady writes that is
 * never, and the log would grow to the main connection's backstop. RESTART waits for the write lock (the
 * main connection's transactions hold it for microseconds), copies the few pages PASSIVE left, and makes
 * the next writer start the log from its beginning; `journal_size_limit` then cuts the file back.
 */
const RESTART_PAGES = 512;

parentPort!.on('message', () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    if ((passive?.log ?? 0) > RESTART_PAGES) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // The next request tries again; meanwhile the main connection's own checkpoint bounds the log.
  }
  parentPort!.postMessage('done');
});
