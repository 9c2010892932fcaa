import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Which machine and pid namespace this process runs in: the kernel's boot id and the pid namespace's
 * inode. Two processes with the same value see the same pids, so one can ask the kernel whether the
 * other is alive. Null where /proc does not tell (not Linux): then no lease is taken over early.
 */
function readPidSpace(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '').slice(0, 12);
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return boot && namespace ? `${boot}.${namespace}` : null;
  } catch {
    return null;
  }
}

const PID_SPACE = readPidSpace();
const HOST = hostname().replace(/[^A-Za-z0-9._-]/g, '_');

/** Lease owners of this process that are still in use: the same pid alone does not make an owner dead. */
const liveOwners = new Set<string>();

/**
 * A lease owner name for something in this process: `<host>:<pid>:<random>@<pid space>`. The random part
 * tells apart owners in one process and a later process that got the same pid (a restarted container).
 */
export function newOwner(): string {
  const owner = `${HOST}:${process.pid}:${randomUUID().slice(0, 8)}@${PID_SPACE ?? 'unknown'}`;
  liveOwners.add(owner);
  return owner;
}

/** The owner no longer holds anything in this process (its projector stopped, its lease was given back). */
export function retireOwner(owner: string): void {
  liveOwners.delete(owner);
}

interface ParsedOwner {
  readonly host: string;
  readonly pid: number;
  readonly pidSpace: string;
}

function parseOwner(owner: string): ParsedOwner | null {
  const match = /^([^:@]+):(\d+):[0-9a-f]{8}@([0-9a-f]+\.\d+)$/.exec(owner);
  return match ? { host: match[1]!, pid: Number(match[2]), pidSpace: match[3]! } : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * True only when the lease owner certainly no longer runs: it ran on this host, in this pid namespace,
 * and its pid is gone, or is this very process's pid without being one of this process's live owners (a
 * predecessor that had the pid this process now has). Anything else may be alive and must be waited out:
 * another host, or another pid namespace (another container, or this container before a restart, which
 * cannot be told apart from inside).
 */
export function isDeadPredecessor(owner: string): boolean {
  const parsed = parseOwner(owner);
  if (!parsed || PID_SPACE === null || parsed.pidSpace !== PID_SPACE || parsed.host !== HOST) return false;
  if (liveOwners.has(owner)) return false;
  if (parsed.pid === process.pid) return true;
  return !alive(parsed.pid);
}
