/**
 * What EventStore-Client-NodeJS's own tests import as "@test-utils", written for this project: the node
 * they start is the EventStoreDB protocol STAND-IN (test/support/esdb-stand-in.ts, not a server) in its
 * secure mode (TLS, users), where the originals start a docker container. Everything else they use from
 * it (event makers, collecting a read, a deferred promise, server-version checks) is re-implemented here
 * from what the tests expect of it. Run by test/official-client/run.ts.
 */
import { binaryEvent, jsonEvent, type EventData } from '@eventstore/db-client';
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
