/**
 * What EventStore-Client-NodeJS's own tests import as "@test-utils", written for this project: the node
 * they start is the EventStoreDB protocol STAND-IN (test/support/esdb-stand-in.ts, not a server) in its
 * secure mode (TLS, users), where the originals start a docker container. Everything else they use from
 * it (event makers, collecting a read, a deferred promise, server-version checks) is re-implemented here
 * from what the tests expect of it. Run by test/official-client/run.ts.
 */
import { binaryEvent, jsonEvent, type EndPoint, type EventData, type EventStoreDBClient } from '@eventstore/db-client';
import { EsdbStandInCluster } from '../support/esdb-stand-in-cluster.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';

/** The version the stand-in models; what `matchServerVersion` compares with. */
export const STAND_IN_SERVER_VERSION = '24.10.0';

export class StandInNode {
  private standIn: EsdbStandIn | null = null;

  constructor(private readonly secure: boolean) {}

  async up(): Promise<void> {
    this.standIn = await EsdbStandIn.start({ secure: this.secure });
  }

  async down(): Promise<void> {
    await this.standIn?.stop();
    this.standIn = null;
  }

  private get running(): EsdbStandIn {
    if (!this.standIn) throw new Error('the stand-in node is not up');
    return this.standIn;
  }

  get uri(): string {
    return this.running.endpoint;
  }

  get certs(): { root: Buffer | undefined } {
    return { root: this.running.rootCertificate };
  }

  connectionString(): string {
    return this.running.url;
  }
}

/** The tests' three-node cluster (their Cluster.ts starts docker containers): the secure stand-in cluster. */
export class StandInCluster {
  private cluster: EsdbStandInCluster | null = null;

  async up(): Promise<void> {
    this.cluster = await EsdbStandInCluster.start({ secure: true });
  }

  async down(): Promise<void> {
    await this.cluster?.shutdown();
    this.cluster = null;
  }

  private get running(): EsdbStandInCluster {
    if (!this.cluster) throw new Error('the stand-in cluster is not up');
    return this.cluster;
  }

  get endpoints(): EndPoint[] {
    return this.running.nodes.map((node) => {
      const [address, port] = node.standIn.endpoint.split(':');
      return { address: address!, port: Number(port) };
    });
  }

  get certs(): { root: Buffer | undefined } {
    return { root: this.running.tls?.root };
  }

  /** Their `killNode`: the node's container stopped (a leader is replaced by an election). */
  async killNode(endpoint: EndPoint): Promise<void> {
    const node = this.running.nodes.find((n) => n.standIn.endpoint === `${endpoint.address}:${endpoint.port}`);
    if (!node) throw new Error(`no stand-in node at ${endpoint.address}:${endpoint.port}`);
    this.running.stop(node);
    await Promise.resolve();
  }

  /** Their `resurrect`: every stopped node started again. */
  async resurrect(): Promise<void> {
    await this.running.restartStopped();
  }
}

export const createTestCluster = (): StandInCluster => new StandInCluster();

/** The node the client's channel is on, as theirs reads it (the client's own channel target). */
export async function getCurrentConnection(client: EventStoreDBClient): Promise<EndPoint> {
  const channel = await (client as unknown as { getChannel(): Promise<{ getTarget(): string }> }).getChannel();
  const [, address, port] = channel.getTarget().split(':');
  return { address: address!, port: Number.parseInt(port!, 10) };
}

export const createTestNode = (): StandInNode => new StandInNode(true);
export const createInsecureTestNode = (): StandInNode => new StandInNode(false);

export interface TestEventData {
  message: 'test';
  index: number;
}

export const jsonTestEvents = (count = 4, type = 'test'): EventData[] =>
  Array.from({ length: count }, (_, index) => jsonEvent({ type, data: { message: 'test', index } }));

export const binaryTestEvents = (count = 4, type = 'test'): EventData[] =>
  Array.from({ length: count }, (_, index) => binaryEvent({ type, data: Buffer.from(`hello: ${index}`) }));

export async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of read) all.push(item);
  return all;
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class Defer {
  resolve!: () => void;
  reject!: (reason?: unknown) => void;
  readonly promise = new Promise<void>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
}

const parts = (version: string) => version.split('.').map((n) => Number.parseInt(n, 10));

/** matchServerVersion`>=21.10`: whether the stand-in's version satisfies the condition. */
export function matchServerVersion(strings: TemplateStringsArray, ...values: unknown[]): boolean {
  const condition = strings.reduce((text, chunk, i) => `${text}${chunk}${values[i] === undefined ? '' : String(values[i] as string | number)}`, '').trim();
  const [, operator = '===', version = ''] = /^(>=|<=)?\s*([0-9.]+)/.exec(condition) ?? [];
  const wanted = parts(version);
  const actual = parts(STAND_IN_SERVER_VERSION);
  let order = 0;
  for (let i = 0; i < wanted.length && order === 0; i += 1) order = Math.sign(actual[i]! - wanted[i]!);
  return operator === '>=' ? order >= 0 : operator === '<=' ? order <= 0 : order === 0;
}

export const optionalDescribe = (condition: boolean): Mocha.SuiteFunction | Mocha.PendingSuiteFunction => (condition ? describe : describe.skip);
export const optionalTest = (condition: boolean): Mocha.TestFunction | Mocha.PendingTestFunction => (condition ? it : it.skip);
