import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { StandInLog, type ProposedEvent } from '../support/esdb-stand-in-log.ts';

// The EventStoreDB protocol STAND-IN's deduplication, as IndexWriter.CheckCommit (v24.10.0) makes it.
const event = (id = randomUUID()): ProposedEvent => ({
  id,
  type: 'T',
  contentType: 'application/json',
  data: Buffer.from('{}'),
  customMetadata: new Uint8Array(),
});

describe('EventStoreDB stand-in: deduplication of a repeated append (protocol stand-in, not a server)', () => {
  it('answers a repeated `any` or `stream_exists` append from the cache of recent ids, writing nothing', () => {
    const log = new StandInLog();
    const stream = `s-${randomUUID()}`;
    const first = event();
    const made = log.append(stream, { kind: 'any' }, [first]);
    assert.deepEqual(log.append(stream, { kind: 'any' }, [first]), made);
    assert.deepEqual(log.append(stream, { kind: 'stream_exists' }, [first]), made);
    assert.equal(log.stream(stream, 0n).length, 1);
  });

  it('writes a repeated `any` append again once its ids left the bounded cache, or after a restart or leader change', () => {
    // Room for about three entries: 16 + 4 + 8 + MemSizer.SizeOf of a 38-character stream name (104) = 132 bytes each.
    const log = new StandInLog(400);
    const stream = `s-${randomUUID()}`;
    const first = event();
    log.append(stream, { kind: 'any' }, [first]);
    for (let i = 0; i < 3; i += 1) log.append(stream, { kind: 'any' }, [event()]);
    assert.ok(log.committedIds.size <= 3);
    log.append(stream, { kind: 'any' }, [first]);
    assert.equal(log.stream(stream, 0n).filter((e) => e.id === first.id).length, 2);

    const other = `s-${randomUUID()}`;
    const again = event();
    log.append(other, { kind: 'any' }, [again]);
    log.forgetCommittedIds();
    log.append(other, { kind: 'stream_exists' }, [again]);
    assert.equal(log.stream(other, 0n).length, 2);
  });

  it('still finds an exact-revision or `no_stream` repeat through the stream itself after the cache is gone', () => {
    const log = new StandInLog();
    const stream = `s-${randomUUID()}`;
    const [a, b] = [event(), event()];
    const created = log.append(stream, { kind: 'no_stream' }, [a]);
    const next = log.append(stream, { kind: 'revision', revision: 0n }, [b]);
    log.forgetCommittedIds();
    assert.deepEqual(log.append(stream, { kind: 'no_stream' }, [a]), created);
    assert.deepEqual(log.append(stream, { kind: 'revision', revision: 0n }, [b]), next);
    assert.equal(log.stream(stream, 0n).length, 2);
  });
});
