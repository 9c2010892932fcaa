import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EsdbChainSource } from '../../src/events/esdb-chain-source.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { packPosition } from '../../src/events/esdb-position.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import type { StoredEvent } from '../support/esdb-stand-in-log.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { runCli, type CliResult } from '../support/run-cli.ts';

const positionOf = (record: StoredEvent) => packPosition({ commit: record.commit, prepare: record.prepare });
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

interface Log {
  readonly standIn: EsdbStandIn;
  /** This project's records in $all order: [0, 1] from before the chains, then chained ones. */
  readonly ours: () => StoredEvent[];
  readonly sealedThrough: bigint;
}

/**
 * On the EventStoreDB protocol STAND-IN (not a server): two events written before the chains (no hash in
 * their metadata), then eight through the adapter over three streams, interleaved; the log sealed as the
 * service does at start; then two more events after the seal.
 */
async function writeLog(): Promise<Log> {
  const standIn = await EsdbStandIn.start();
  const legacy = filterStream(randomUUID());
  for (const revision of [0n, 1n]) {
    const event = {
      id: randomUUID(),
      type: 'FilterUpdated',
      contentType: 'application/json',
      data: json({ n: Number(revision) }),
      customMetadata: json({ old: true }),
    };
    standIn.log.append(legacy, revision === 0n ? { kind: 'no_stream' } : { kind: 'revision', revision: 0n }, [event]);
  }
  const store = EsdbEventStore.connect(standIn.url);
  const streams = [legacy, filterStream(randomUUID()), filterStream(randomUUID())];
  const next = new Map<string, bigint>([[legacy, 1n]]);
  const append = async (index: number) => {
    const stream = streams[index]!;
    const data = { filterId: stream.slice(7), title: `title ${index}`, keywords: ['one', 'two'] };
    const result = await store.appendToStream(
      stream,
      [{ type: 'FilterUpdated', data, metadata: { accountId: `account${index}` } }],
      next.get(stream) ?? 'no_stream',
    );
    next.set(stream, result.nextRevision);
  };
  for (const index of [1, 2, 0, 1, 2, 1, 0, 2]) await append(index);
  const source = EsdbChainSource.connect(standIn.url);
  const sealed = await source.sealHead();
  await source.close();
  for (const index of [1, 2]) await append(index);
  await store.close();
  const ours = () => standIn.log.events.filter((e) => e.stream.startsWith('filter-'));
  return { standIn, ours, sealedThrough: sealed!.position };
}

const verify = (log: Log, ...args: string[]): Promise<CliResult> => runCli(['verify', ...args], { EVENTSTORE_URL: log.standIn.url });

function failure(result: CliResult): string {
  assert.equal(result.code, 2, `exit code 2, got ${result.code}: ${result.stderr}`);
  return result.stderr.trim();
}

/** One byte of a record's data, metadata or type changed (a letter of a value, so the JSON stays valid). */
function changeByte(log: Log, index: number, field: 'data' | 'customMetadata' | 'type'): bigint {
  const record = log.ours()[index]!;
  log.standIn.log.tamperForTest((records) => {
    const changed =
      field === 'type'
        ? { type: `${record.type.slice(0, -1)}x` }
        : {
            [field]: Buffer.from(
              Buffer.from(record[field])
                .toString()
                .replace(/"([a-z])/, '"q'),
            ),
          };
    records[records.indexOf(record)] = { ...record, ...changed };
  });
  return positionOf(record);
}

describe('content-filters verify on EventStoreDB (the protocol stand-in, not a server)', function () {
  this.timeout(120_000);
  let log: Log | undefined;
  afterEach(async () => {
    await log?.standIn.stop();
    log = undefined;
  });

  it('passes an untouched log, events from before the chains included, and says how far it is sealed', async () => {
    log = await writeLog();
    const result = await verify(log);
    assert.equal(result.code, 0, result.stderr);
    const last = positionOf(log.ours().at(-1)!);
    assert.match(result.stdout, new RegExp(`^verified 12 events; head ${last}:[0-9a-f]{64}; sealed through ${log.sealedThrough}\\n$`));
  });

  for (const field of ['data', 'customMetadata', 'type'] as const) {
    it(`names the chained event whose ${field === 'customMetadata' ? 'metadata' : field} had one byte changed`, async () => {
      log = await writeLog();
      const position = changeByte(log, 5, field);
      assert.match(failure(await verify(log)), new RegExp(`^error: verify failed at position ${position}: content changed: `));
    });
  }

  it('names the next event of a stream that lost one', async () => {
    log = await writeLog();
    const ours = log.ours();
    // Index 3 is revision 0 of the second stream; its revision 1 is index 6.
    log.standIn.log.tamperForTest((records) => records.splice(records.indexOf(ours[3]!), 1));
    assert.match(
      failure(await verify(log)),
      new RegExp(`^error: verify failed at position ${positionOf(ours[6]!)}: event missing: stream \\S+ has revision 1 but no revision 0$`),
    );
  });

  it('names the seal when two events of different streams swapped places before it', async () => {
    log = await writeLog();
    const [a, b] = [log.ours()[2]!, log.ours()[3]!];
    log.standIn.log.tamperForTest((records) => {
      const [i, j] = [records.indexOf(a), records.indexOf(b)];
      records[i] = { ...b, commit: a.commit, prepare: a.prepare };
      records[j] = { ...a, commit: b.commit, prepare: b.prepare };
    });
    assert.match(
      failure(await verify(log)),
      new RegExp(`^error: verify failed at position ${log.sealedThrough}: order changed, event missing or content changed before it: .* seal`),
    );
  });

  it('says the tail was truncated when the log ends before its seal, and before a head given with --expect', async () => {
    log = await writeLog();
    const ours = log.ours();
    const head = /head (\S+);/.exec((await verify(log)).stdout)![1]!;
    // This project's events from the eighth on; the seal stream stays.
    const cut = new Set(ours.slice(7));
    log.standIn.log.tamperForTest((records) => records.splice(0, records.length, ...records.filter((r) => !cut.has(r))));
    assert.match(
      failure(await verify(log)),
      new RegExp(`tail truncated: the log ends at position ${positionOf(ours[6]!)}, before a seal's position ${log.sealedThrough}`),
    );
    assert.match(failure(await verify(log, '--expect', head)), /tail truncated: .* before a seal's position/);
  });

  it('names the seal when an event from before the chains was changed (the first seal covers them)', async () => {
    log = await writeLog();
    changeByte(log, 0, 'data');
    assert.match(
      failure(await verify(log)),
      new RegExp(`^error: verify failed at position ${log.sealedThrough}: order changed, event missing or content changed before it`),
    );
  });
});
