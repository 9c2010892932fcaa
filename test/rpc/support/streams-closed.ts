import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningRpcServer } from '../../../src/rpc/rpc-server.ts';

/** Waits (at most a second) for the server to have closed every DoubleEcho stream, and fails if it has not. */
export async function streamsClosed(server: RunningRpcServer): Promise<void> {
  for (let i = 0; i < 100 && server.streams.open > 0; i++) await sleep(10);
  assert.equal(server.streams.open, 0, 'the server still holds a DoubleEcho stream');
}
