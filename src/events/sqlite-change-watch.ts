import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** A safety net only: where file-system events work (Linux inotify, macOS FSEvents) they come first. */
const SAFETY_POLL_MS = 1000;

/**
 * Calls `check` whenever another process may have committed to the SQLite file at `path`: at once when
 * its write-ahead log changes (a file-system event, so no fixed delay), and every second anyway, for file
 * systems that send no events (network mounts). `check` decides, cheaply, whether anything changed.
 * Returns a function that stops watching.
 */
export function watchSqliteCommits(path: string, check: () => void, safetyPollMs = SAFETY_POLL_MS): () => void {
  const wal = `${basename(path)}-wal`;
  let watcher: FSWatcher | null = null;
  try {
    if (path !== ':memory:') {
      const watching = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file === null || file === wal) check();
      });
      watching.on('error', () => watching.close());
      watcher = watching;
    }
  } catch {
    watcher = null;
  }
  const poller = setInterval(check, safetyPollMs);
  poller.unref();
  return () => {
    watcher?.close();
    clearInterval(poller);
  };
}
