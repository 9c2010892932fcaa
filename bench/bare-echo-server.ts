import { Server, ServerCredentials, type ServiceDefinition, type ServerDuplexStream } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { TEST_SERVICE_NAME, TEST_SERVICE_PROTO } from '../src/rpc/package-definitions.ts';

type Payload = { payload: string };

/**
 * The baseline: the same proto on grpc-js with nothing else (no health, reflection, metadata echo,
 * range check or flow control). DoubleEcho ignores write()'s false, which is also what makes it the
 * control case of the backpressure test.
 */
export async function startBareEchoServer(host = '127.0.0.1'): Promise<{ target: string; stop: () => void }> {
  const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
  const service = loadSync(TEST_SERVICE_PROTO, options)[TEST_SERVICE_NAME] as ServiceDefinition;
  const server = new Server();
  server.addService(service, {
    Echo: (call: { request: Payload }, callback: (error: null, reply: Payload) => void) => callback(null, { payload: call.request.payload }),
    Sum: (call: { request: { values: number[] } }, callback: (error: null, reply: { value: number }) => void) =>
      callback(null, { value: call.request.values.reduce((a, b) => a + b, 0) }),
    DoubleEcho: (call: ServerDuplexStream<Payload, Payload>) => {
      call.on('data', (request: Payload) => {
        call.write({ payload: request.payload });
        call.write({ payload: request.payload });
      });
      call.on('end', () => call.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:0`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { target: `${host}:${port}`, stop: () => server.forceShutdown() };
}
