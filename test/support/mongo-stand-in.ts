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

export interface MongoStandIn {
  /** The first member alone (directConnection), as the tests that need no replica set use it. */
  url(): string;
  replicaSetUrl(query?: string): string;
  memberUrls(): string[];
  /** The member that is primary now, alone: where a fail point for the next write must be set. */
  primaryUrl(): Promise<string>;
}

/**
 * Registers before/after hooks that run the MongoDB wire-protocol STAND-IN (mockupdb answering from
 * mongomock, not a server) for the enclosing suite; `url()` is its address once `before` has run.
 * Does nothing when `missing` says the stand-in cannot run. `sessions`: members advertise sessions, so the
 * driver sends txnNumber and retries writes (mongo-stand-in.py says why it is not the default).
 */
export function mongoStandIn(missing: string | null, options: { sessions?: boolean } = {}): MongoStandIn {
  let child: ChildProcess | null = null;
  let url: string | null = null;
  let ports: string[] = [];
  before(async () => {
    if (missing) return;
    child = spawn(PYTHON, [SCRIPT, ...(options.sessions ? ['--sessions'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
    const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
    ports = String(first.value).trim().split(' ');
    url = `mongodb://127.0.0.1:${ports[0]}/?directConnection=true`;
  });
  after(() => {
    child?.kill('SIGKILL');
  });
  return {
    url() {
      if (!url) throw new Error('the MongoDB stand-in is not running');
      return url;
    },
    /** The whole set (primary, secondary, arbiter), as production names it: the driver follows the primary. */
    replicaSetUrl(query = '') {
      if (!url) throw new Error('the MongoDB stand-in is not running');
      return `mongodb://${ports.map((port) => `127.0.0.1:${port}`).join(',')}/?replicaSet=rs0${query}`;
    },
    /** Each member on its own (primary first until a step-down), for its fail points. */
    memberUrls() {
      return ports.map((port) => `mongodb://127.0.0.1:${port}/?directConnection=true`);
    },
    async primaryUrl() {
      const { primary } = await adminCommand(this.url(), { hello: 1 });
      return `mongodb://${String(primary)}/?directConnection=true`;
    },
  };
}

export interface FailCommand {
  /** The server error code every named command answers with (src/mongo/base/error_codes.yml). */
  readonly errorCode?: number;
  readonly errorLabels?: readonly string[];
  readonly failCommands: readonly string[];
  /** Close the connection instead of answering (a node that dies in the middle of a batch). */
  readonly closeConnection?: boolean;
  /** Wait blockTimeMS before going on (a hung primary, with socketTimeoutMS below it). */
  readonly blockConnection?: boolean;
  readonly blockTimeMS?: number;
  /** Run the command, then answer with this writeConcernError. */
  readonly writeConcernError?: { readonly code: number; readonly codeName?: string; readonly errmsg: string };
}

/** An admin command sent to the member `url` names (the stand-in's first member with `url()`). */
export async function adminCommand(url: string, command: Record<string, unknown>): Promise<Record<string, unknown>> {
  const client = await MongoClient.connect(url);
  try {
    return await client.db('admin').command(command);
  } finally {
    await client.close();
  }
}

/**
 * Turns mongod's `failCommand` fail point on (the stand-in implements it; a real server needs
 * enableTestCommands) until `failCommandOff`, always or for the next `times` commands it names.
 */
export async function failCommandOn(url: string, data: FailCommand, times?: number): Promise<{ entered(count?: number): Promise<void> }> {
  const { count } = await adminCommand(url, { configureFailPoint: 'failCommand', mode: times === undefined ? 'alwaysOn' : { times }, data });
  return {
    /** Resolves once commands met the fail point `times` times (mongod's waitForFailPoint). */
    entered: async (times = 1) => {
      await adminCommand(url, { waitForFailPoint: 'failCommand', timesEntered: Number(count) + times, maxTimeMS: 30_000 });
    },
  };
}

export async function failCommandOff(url: string): Promise<void> {
  await adminCommand(url, { configureFailPoint: 'failCommand', mode: 'off' });
}

/** mongod's stopReplProducer fail point: the secondary stops copying, so the majority stays behind. */
export async function stopReplication(url: string, stopped: boolean): Promise<void> {
  await adminCommand(url, { configureFailPoint: 'stopReplProducer', mode: stopped ? 'alwaysOn' : 'off' });
}

/** replSetStepDown on the primary; `force` elects the secondary even when it lags (a rollback). */
export async function stepDown(replicaSetUrl: string, force = false): Promise<void> {
  await adminCommand(replicaSetUrl, { replSetStepDown: 10, force });
}

/**
 * mongod's hangBeforeWaitingForWriteConcern fail point on the member `url`: each write (of `collections`
 * alone, a stand-in addition), once applied, pauses before its write-concern wait until it is turned off.
 */
export async function hangBeforeWriteConcern(url: string, collections?: readonly string[]): Promise<{ entered(): Promise<void>; release(): Promise<void> }> {
  const name = 'hangBeforeWaitingForWriteConcern';
  const { count } = await adminCommand(url, { configureFailPoint: name, mode: 'alwaysOn', data: collections ? { collections } : {} });
  return {
    /** Resolves once a write applied on the member is paused there. */
    entered: async () => {
      await adminCommand(url, { waitForFailPoint: name, timesEntered: Number(count) + 1, maxTimeMS: 30_000 });
    },
    release: async () => {
      await adminCommand(url, { configureFailPoint: name, mode: 'off' });
    },
  };
}

/**
 * Two of the set's three members down (the stand-in's own command; on a real set, their hosts): the primary
 * `url` names steps down and no member can be elected until `down` is false again.
 */
export async function loseMajority(url: string, down: boolean): Promise<void> {
  await adminCommand(url, { standInLoseMajority: 1, down });
}
