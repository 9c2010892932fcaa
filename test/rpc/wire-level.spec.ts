import assert from 'node:assert/strict';
import { Client, credentials, Metadata, status, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import type { EchoRequest, EchoResponse } from '../../src/rpc/messages.ts';
import { loadTestServiceDefinition, TEST_SERVICE_NAME } from '../../src/rpc/package-definitions.ts';
import { startRpcServer, type RunningRpcServer } from '../../src/rpc/rpc-server.ts';
import { frame, grpcStatus, plainBytes, rawCall } from './support/raw-grpc.ts';

const methods = loadTestServiceDefinition()[TEST_SERVICE_NAME] as ServiceDefinition;
const encodeEcho = (payload: string) => methods.Echo!.requestSerialize({ payload } satisfies EchoRequest);
const decodeEcho = (bytes: Buffer) => methods.Echo!.responseDeserialize(bytes) as EchoResponse;

describe('TestService on the wire (plain HTTP/2, no gRPC library)', () => {
  let server: RunningRpcServer;

  before(async () => {
    server = await startRpcServer({ port: 0 });
  });
  after(() => server.forceShutdown());

  it('answers an Echo with status 0 in the trailers and advertises gzip', async () => {
    const outcome = await rawCall(server.target, '/test_service.TestService/Echo', frame(encodeEcho('raw')));
    assert.equal(outcome.headers[':status'], 200);
    assert.match(String(outcome.headers['grpc-accept-encoding']), /\bgzip\b/);
    assert.equal(outcome.messages.length, 1);
    assert.deepEqual(decodeEcho(plainBytes(outcome.messages[0]!)), { payload: 'raw' });
    assert.equal(grpcStatus(outcome), status.OK);
  });

  it('decompresses a request sent with grpc-encoding gzip and the compressed flag set', async () => {
    const payload = 'gzip '.repeat(2_000);
    const body = frame(encodeEcho(payload), true);
    assert.ok(body.length < 200, `the request really is compressed (${body.length} bytes)`);
    const outcome = await rawCall(server.target, '/test_service.TestService/Echo', body, { 'grpc-encoding': 'gzip' });
    assert.equal(grpcStatus(outcome), status.OK);
    assert.deepEqual(decodeEcho(plainBytes(outcome.messages[0]!)), { payload });
  });

  it('streams DoubleEcho replies for a body of several messages, each twice', async () => {
    const body = Buffer.concat(['a', 'b', 'c'].map((p) => frame(encodeEcho(p))));
    const outcome = await rawCall(server.target, '/test_service.TestService/DoubleEcho', body);
    assert.deepEqual(
      outcome.messages.map((m) => decodeEcho(plainBytes(m)).payload),
      ['a', 'a', 'b', 'b', 'c', 'c'],
    );
    assert.equal(grpcStatus(outcome), status.OK);
  });

  it('answers an unknown method or service with UNIMPLEMENTED', async () => {
    for (const path of ['/test_service.TestService/Nope', '/no.Such/Thing']) {
      const outcome = await rawCall(server.target, path, frame(Buffer.alloc(0)));
      assert.equal(grpcStatus(outcome), status.UNIMPLEMENTED, path);
    }
  });

  it('answers an unknown method with UNIMPLEMENTED to a grpc-js client too', async () => {
    const client = new Client(server.target, credentials.createInsecure());
    const identity = (bytes: Buffer) => bytes;
    const error = await new Promise<ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/test_service.TestService/UnimplementedCall', identity, identity, Buffer.alloc(0), new Metadata(), (e) => resolve(e)),
    );
    client.close();
    assert.equal(error?.code, status.UNIMPLEMENTED);
  });

  it('refuses a message that is not a valid EchoRequest with INTERNAL, and keeps serving', async () => {
    const garbage = await rawCall(server.target, '/test_service.TestService/Echo', frame(Buffer.from([0xff, 0xff])));
    assert.equal(grpcStatus(garbage), status.INTERNAL);
    const fine = await rawCall(server.target, '/test_service.TestService/Echo', frame(encodeEcho('still here')));
    assert.equal(grpcStatus(fine), status.OK);
  });
});
