import type { RunningRpcServer } from '../../../src/rpc/rpc-server.ts';
import { waitUntil } from '../../support/wait-until.ts';

/** Waits for the server to have closed every DoubleEcho stream, and fails if it still holds one after a long while. */
export async function streamsClosed(server: RunningRpcServer): Promise<void> {
  await waitUntil(() => server.streams.open === 0, 'the server to close every DoubleEcho stream');
}
