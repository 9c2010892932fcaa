import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';

// Debian's python3 (not a pyenv one) is the interpreter that has python3-mockupdb and python3-mongomock.
const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('./mongo-stand-in.py', import.meta.url).pathname;

/** Why the stand-in cannot run here, or null when it can. */
export function standInMissing(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import mockupdb, mongomock'], { encoding: 'utf8' });
  return probe.status === 0 ? null : 'install python3-mockupdb and python3-mongomock (Debian) to run it';
}

/**
 * Registers before/after hooks that run the MongoDB wire-protocol STAND-IN (mockupdb answering from
 * mongomock, not a server) for the enclosing suite; `url()` is its address once `before` has run.
 * Does nothing when `missing` says the stand-in cannot run.
 */
export function mongoStandIn(missing: string | null): { url(): string } {
  let child: ChildProcess | null = null;
  let url: string | null = null;
  before(async () => {
    if (missing) return;
    child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
    url = `mongodb://127.0.0.1:${String(first.value).trim()}/?directConnection=true`;
  });
  after(() => {
    child?.kill('SIGKILL');
  });
  return {
    url() {
      if (!url) throw new Error('the MongoDB stand-in is not running');
      return url;
    },
  };
}

export interface FailCommand {
  /** The server error code every named command answers with (src/mongo/base/error_codes.yml). */
  readonly errorCode: number;
  readonly errorLabels?: readonly string[];
  readonly failCommands: readonly string[];
}

/**
 * Turns mongod's `failCommand` fail point on (the stand-in implements it; a real server needs
 * enableTestCommands) until `failCommandOff`: the named commands answer with the given error.
 */
export async function failCommandOn(url: string, data: FailCommand): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    await client.db('admin').command({ configureFailPoint: 'failCommand', mode: 'alwaysOn', data });
  } finally {
    await client.close();
  }
}

export async function failCommandOff(url: string): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    await client.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
  } finally {
    await client.close();
  }
}
