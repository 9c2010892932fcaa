import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TinyDisk {
  /** A fresh directory on the small file system. */
  readonly dir: string;
  /** Writes a file until the file system has not one byte left. */
  fill(): void;
  /** Deletes what `fill` wrote. */
  free(): void;
  unmount(): void;
}

/**
 * A tmpfs of `sizeMb` mounted for one test (it needs root, or CAP_SYS_ADMIN): a disk that really fills
 * up. Throws with the reason when it cannot be mounted.
 */
export function mountTinyDisk(sizeMb: number): TinyDisk {
  const mountPoint = mkdtempSync(join(tmpdir(), 'cf-tiny-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', mountPoint], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    throw new Error(`cannot mount a tmpfs (${(error as { stderr?: Buffer }).stderr?.toString().trim() ?? (error as Error).message})`, { cause: error });
  }
  const dir = join(mountPoint, 'data');
  mkdirSync(dir);
  const filler = join(mountPoint, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Large writes first, then ever smaller ones, down to the last free byte.
        for (const size of [1 << 20, 1 << 16, 1 << 12, 1]) {
          const chunk = Buffer.alloc(size, 0x2a);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch (error) {
              if ((error as { code?: string }).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      // Lazy: a file some thread still has open must not keep the mount (and the test) alive.
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}
