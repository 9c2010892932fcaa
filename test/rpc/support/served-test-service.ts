import type { Client } from '@grpc/grpc-js';
import { startRpcServer, type RunningRpcServer } from '../../../src/rpc/rpc-server.ts';
import { testClient } from './rpc-client.ts';

export interface ServedTestService {
  readonly server: RunningRpcServer;
  readonly client: Client;
}

/** Registers hooks: one listening TestService (port 0) and a grpc-js client for the describe block. */
export function servedTestService(): ServedTestService {
  const served = {} as { server: RunningRpcServer; client: Client };
  before(async () => {
    served.server = await startRpcServer({ port: 0 });
    served.client = testClient(served.server.target);
  });
  after(() => {
    served.client?.close();
    served.server?.forceShutdown();
  });
  return served;
}
