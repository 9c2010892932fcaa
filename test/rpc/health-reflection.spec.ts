import assert from 'node:assert/strict';
import { credentials, status, type ClientDuplexStream, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { startRpcServer, type RunningRpcServer } from '../../src/rpc/rpc-server.ts';
import { HealthClient, ReflectionV1AlphaClient, ReflectionV1Client, type DynamicClient } from './support/grpc-services.ts';

type HealthResponse = { status: string };
type ReflectionResponse = {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
};

function check(client: DynamicClient, service: string): Promise<HealthResponse> {
  return new Promise((resolve, reject) =>
    client.Check!({ service }, (error: ServiceError | null, reply: HealthResponse) => (error ? reject(error) : resolve(reply))),
  );
}

/** One request on a reflection stream, answered with one response. */
function reflect(client: DynamicClient, request: Record<string, string>): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo!() as ClientDuplexStream<unknown, ReflectionResponse>;
    call.once('data', (reply: ReflectionResponse) => {
      call.end();
      resolve(reply);
    });
    call.on('error', reject);
    call.write({ host: '', ...request });
  });
}

describe('TestService health and reflection', () => {
  let server: RunningRpcServer;
  const clients: DynamicClient[] = [];
  const connect = (Constructor: typeof HealthClient) => {
    const client = new Constructor(server.target, credentials.createInsecure()) as DynamicClient;
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = await startRpcServer({ port: 0 });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    server.forceShutdown();
  });

  it('reports SERVING for the server and for test_service.TestService', async () => {
    const health = connect(HealthClient);
    assert.deepEqual(await check(health, ''), { status: 'SERVING' });
    assert.deepEqual(await check(health, 'test_service.TestService'), { status: 'SERVING' });
  });

  it('answers NOT_FOUND for a service it does not know', async () => {
    await assert.rejects(check(connect(HealthClient), 'nope'), (error: ServiceError) => error.code === status.NOT_FOUND);
  });

  it('tells a Watch client SERVING, then NOT_SERVING once shutdown starts', async () => {
    const watch = connect(HealthClient).Watch!({ service: '' }) as ClientReadableStream<HealthResponse>;
    watch.on('error', () => {});
    const seen: string[] = [];
    const untilNotServing = new Promise<void>((resolve) =>
      watch.on('data', (reply: HealthResponse) => {
        seen.push(reply.status);
        if (seen.length === 1) void server.shutdown(50);
        if (reply.status === 'NOT_SERVING') resolve();
      }),
    );
    await untilNotServing;
    assert.deepEqual(seen, ['SERVING', 'NOT_SERVING']);
  });

  for (const [version, Constructor] of [
    ['v1', ReflectionV1Client],
    ['v1alpha', ReflectionV1AlphaClient],
  ] as const) {
    it(`lists TestService and Health through reflection ${version}`, async () => {
      const reply = await reflect(connect(Constructor), { list_services: '' });
      const names = reply.list_services_response?.service.map((s) => s.name).sort();
      assert.deepEqual(names, ['grpc.health.v1.Health', 'test_service.TestService']);
    });
  }

  it('describes Health with Check and Watch and without the map<> List types that break clients', async () => {
    const reply = await reflect(connect(ReflectionV1Client), { file_containing_symbol: 'grpc.health.v1.Health' });
    const files = reply.file_descriptor_response?.file_descriptor_proto ?? [];
    const text = Buffer.concat(files).toString('latin1');
    assert.ok(files.length > 0, JSON.stringify(reply.error_response));
    assert.match(text, /HealthCheckRequest/);
    assert.match(text, /Watch/);
    assert.doesNotMatch(text, /HealthListResponse|Statuses/);
  });

  it('describes the TestService methods from test_service.proto', async () => {
    const reply = await reflect(connect(ReflectionV1Client), { file_containing_symbol: 'test_service.TestService' });
    const text = Buffer.concat(reply.file_descriptor_response?.file_descriptor_proto ?? []).toString('latin1');
    for (const name of ['test_service.proto', 'Echo', 'Sum', 'DoubleEcho', 'SumRequest']) assert.match(text, new RegExp(name));
  });
});
