import assert from 'node:assert/strict';
import { CancelledError, type EventStoreDBClient } from '@eventstore/db-client';
import { EsdbLeaderConnection } from '../../src/events/esdb-leader-connection.ts';
import { onLeader, readFromLeader } from '../../src/events/esdb-leader-failure.ts';

// The retry rule alone, over a connection whose clients are never called: what a cancelled call means
// depends on whether the connection moved on while it ran.
const disposable = (): EventStoreDBClient => ({ dispose: () => Promise.resolve() }) as unknown as EventStoreDBClient;

describe('EventStoreDB calls of the leader: a cancelled call', () => {
  it('is made again when a concurrent call moved the connection on while it ran (its client was disposed)', async () => {
    const connection = new EsdbLeaderConnection(disposable(), disposable);
    let calls = 0;
    const answer = await readFromLeader(connection, 20_000, () => {
      calls += 1;
      if (calls === 1) {
        // What another call's rediscovery does mid-flight: the old client goes, its calls are cancelled.
        connection.moveOn(connection.seen);
        return Promise.reject(new CancelledError());
      }
      return Promise.resolve('read');
    });
    assert.equal(answer, 'read');
    assert.equal(calls, 2);
    assert.equal(connection.moves, 1);
  });

  it('is made again when the client cancelled it by itself (it reconnected: nothing moved)', async () => {
    const connection = new EsdbLeaderConnection(disposable(), disposable);
    let calls = 0;
    const answer = await readFromLeader(connection, 20_000, () => (++calls === 1 ? Promise.reject(new CancelledError()) : Promise.resolve('read')));
    assert.equal(answer, 'read');
    assert.equal(calls, 2);
    assert.equal(connection.moves, 0);
  });

  it('is given up at once when the connection closed: not even an append of unknown outcome is retried until the budget ends', async () => {
    const connection = new EsdbLeaderConnection(disposable(), disposable);
    let calls = 0;
    await assert.rejects(
      onLeader(
        connection,
        20_000,
        () => {
          calls += 1;
          if (calls === 1) void connection.close();
          return Promise.reject(new CancelledError());
        },
        (error) => error instanceof CancelledError,
      ),
      CancelledError,
    );
    assert.equal(calls, 1);
    assert.equal(connection.moves, 0);
  });

  it('is retried by an append whatever the cause, as an unknown outcome, when the caller says so', async () => {
    const connection = new EsdbLeaderConnection(disposable(), disposable);
    let calls = 0;
    const answer = await onLeader(
      connection,
      20_000,
      () => (++calls === 1 ? Promise.reject(new CancelledError()) : Promise.resolve('appended')),
      (error) => error instanceof CancelledError,
    );
    assert.equal(answer, 'appended');
    assert.equal(calls, 2);
  });
});
