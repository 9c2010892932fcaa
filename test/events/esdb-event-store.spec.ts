import assert from 'node:assert/strict';
import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client';
import { EsdbEventStore, toClientRevision } from '../../src/events/esdb-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';

const url = process.env.EVENTSTORE_URL;

describe('EventStoreDB adapter: expected revisions', () => {
  it("maps the port's expected revision onto the client's, never defaulting to any", () => {
    assert.equal(toClientRevision('no_stream'), NO_STREAM);
    assert.equal(toClientRevision('stream_exists'), STREAM_EXISTS);
    assert.equal(toClientRevision('any'), ANY);
    assert.equal(toClientRevision(7n), 7n);
    assert.equal(toClientRevision(0n), 0n);
  });
});

// Runs against a real EventStoreDB or KurrentDB only: no such server can run on this machine.
eventStoreContract('EventStoreDB', () => {
  if (!url) {
    console.log('    (EventStoreDB contract skipped: set EVENTSTORE_URL, e.g. esdb://localhost:2113?tls=false, to run it against a server)');
    return null;
  }
  return {
    async open() {
      return EsdbEventStore.connect(url);
    },
    async openSibling() {
      return EsdbEventStore.connect(url);
    },
  };
});
