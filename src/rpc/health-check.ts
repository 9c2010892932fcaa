import { credentials, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadReflectionDefinition } from './package-definitions.ts';

/**
 * `node dist/rpc/health-check.js`: the container health check of the gRPC process. It asks the served
 * `grpc.health.v1.Health/Check` for the whole server on 127.0.0.1:$RPC_PORT and exits 0 only for
 * SERVING, so a process that accepts TCP but no longer serves (shutting down) counts as unhealthy.
 */
const port = process.env.RPC_PORT?.trim() || '50051';
const health = (loadPackageDefinition(loadReflectionDefinition()).grpc as { health: { v1: { Health: ServiceClientConstructor } } }).health.v1.Health;
type Check = (request: { service: string }, options: { deadline: Date }, callback: (error: Error | null, reply?: { status?: string }) => void) => void;
const client = new health(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as { Check: Check; close(): void };
const deadline = new Date(Date.now() + 2500);
client.Check({ service: '' }, { deadline }, (error: Error | null, reply?: { status?: string }) => {
  client.close();
  process.exitCode = !error && reply?.status === 'SERVING' ? 0 : 1;
});
