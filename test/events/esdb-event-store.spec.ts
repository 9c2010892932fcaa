import assert from 'node:assert/strict';
import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client';
import { verifyChains, type VerifyOutcome } from '../../src/events/chain-verify.ts';
import { EsdbChainSource } from '../../src/events/esdb-chain-source.ts';
import { EsdbEventStore, toClientRevision } from '../../src/events/esdb-event-store.ts';
import { packPosition, unpackPosition } from '../../src/events/esdb-position.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';

const url = process.env.EVENTSTORE_URL;

/** The log sealed up to now (as the service does hourly), then verified. */
async function sealedAndVerified(at: string): Promise<VerifyOutcome> {
  const source = EsdbChainSource.connect(at);
  try {
    await source.sealHead();
    return await verifyChains(source);
  } finally {
    await source.close();
  }
}

describe('EventStoreDB adapter: expected revisions', () => {
  it("maps the port's expected revision onto the client's, never defaulting to any", () => {
    assert.equal(toClientRevision('no_stream'), NO_STREAM);
    assert.equal(toClientRevision('stream_exists'), STREAM_EXISTS);
    assert.equal(toClientRevision('any'), ANY);
    assert.equal(toClientRevision(7n), 7n);
    assert.equal(toClientRevision(0n), 0n);
  });
});

describe('EventStoreDB adapter: full positions', () => {
  it('orders packed positions as EventStoreDB orders (commit, prepare), and unpacks them', () => {
    const positions = [
      { commit: 0n, prepare: 0n },
      { commit: 5n, prepare: 5n },
      { commit: 5n, prepare: 90n },
      { commit: 6n, prepare: 2n },
      { commit: 2n ** 63n, prepare: 2n ** 64n - 1n },
    ];
    const packed = positions.map(packPosition);
    for (let i = 1; i < packed.length; i += 1) assert.ok(packed[i - 1]! < packed[i]!);
    assert.deepEqual(packed.map(unpackPosition), positions);
    assert.throws(() => packPosition({ commit: 1n, prepare: 2n ** 64n }), RangeError);
  });
});

// The contract against the EventStoreDB gRPC protocol STAND-IN (test/support/esdb-stand-in.ts), not a
// server: the adapter's real client calls, answered with EventStoreDB's position rules, in every run;
// once through BatchAppend (what the client uses with a 21.10+ server) and once through Append (older).
for (const appendCall of ['BatchAppend', 'Append'] as const) {
  describe(`EventStoreDB adapter against the protocol stand-in (not a server), appending with ${appendCall}`, function () {
    let standIn: EsdbStandIn | null = null;
    before(async () => {
      standIn = await EsdbStandIn.start(appendCall);
    });
    after(async () => {
      await standIn?.stop();
    });
    eventStoreContract(`EventStoreDB protocol stand-in (not a server), ${appendCall}`, () => ({
      async open() {
        return EsdbEventStore.connect(standIn!.url);
      },
      async openSibling() {
        return EsdbEventStore.connect(standIn!.url);
      },
      verifyChains: () => sealedAndVerified(standIn!.url),
    }));
    describe('afterwards', () => {
      it(`served every append of the contract through ${appendCall}`, () => {
        const other = appendCall === 'Append' ? 'BatchAppend' : 'Append';
        assert.ok(standIn!.served[appendCall] > 10, JSON.stringify(standIn!.served));
        assert.equal(standIn!.served[other], 0);
      });
    });
  });
}

// The same contract against a real EventStoreDB or KurrentDB: CI's server job, or `docker compose up`.
eventStoreContract('EventStoreDB server', () => {
  if (!url) {
    console.log('    (EventStoreDB server contract skipped: set EVENTSTORE_URL, e.g. esdb://localhost:2113?tls=false, to run it against a server)');
    return null;
  }
  return {
    async open() {
      return EsdbEventStore.connect(url);
    },
    async openSibling() {
      return EsdbEventStore.connect(url);
    },
    verifyChains: () => sealedAndVerified(url),
  };
});
