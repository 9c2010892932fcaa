import assert from 'node:assert/strict';
import { startRpcServer, type RunningRpcServer } from '../../src/rpc/rpc-server.ts';
import { bufCurl, findBuf, jsonDocuments } from './support/buf-curl.ts';

const method = (name: string) => `{url}/test_service.TestService/${name}`;

describe('TestService through buf curl (an outside client, reflection only)', function () {
  let server: RunningRpcServer;
  let buf = '';
  const curl = (args: readonly string[], stdin?: string) => bufCurl(buf, server.target, args, stdin);

  before(async function () {
    const found = findBuf();
    if ('missing' in found) {
      console.log(`      skipped: buf curl is not available: ${found.missing}`);
      this.skip();
    }
    buf = found.path;
    server = await startRpcServer({ port: 0 });
  });
  after(() => server?.forceShutdown());

  it('lists both services and all their methods without being given a proto', async () => {
    const services = await curl(['--list-services', '{url}']);
    assert.equal(services.exitCode, 0, services.stderr);
    assert.deepEqual(services.stdout.trim().split('\n').sort(), ['grpc.health.v1.Health', 'test_service.TestService']);
    const methods = await curl(['--list-methods', '{url}']);
    assert.deepEqual(methods.stdout.trim().split('\n').sort(), [
      'grpc.health.v1.Health/Check',
      'grpc.health.v1.Health/Watch',
      'test_service.TestService/DoubleEcho',
      'test_service.TestService/Echo',
      'test_service.TestService/Sum',
    ]);
  });

  it('lists methods over the older v1alpha reflection protocol too', async () => {
    const methods = await curl(['--reflect-protocol', 'grpc-v1alpha', '--list-methods', '{url}']);
    assert.equal(methods.exitCode, 0, methods.stderr);
    assert.match(methods.stdout, /test_service\.TestService\/DoubleEcho/);
  });

  it('calls Echo with a UTF-8 payload', async () => {
    const result = await curl(['-d', '{"payload":"hi from buf ☃ 😈"}', method('Echo')]);
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(jsonDocuments(result.stdout), [{ payload: 'hi from buf ☃ 😈' }]);
  });

  it('calls Sum, with 0 for an empty list', async () => {
    assert.deepEqual(jsonDocuments((await curl(['-d', '{"values":[1,2,3]}', method('Sum')])).stdout), [{ value: 6 }]);
    const empty = await curl(['--emit-defaults', '-d', '{}', method('Sum')]);
    assert.deepEqual(jsonDocuments(empty.stdout), [{ value: 0 }]);
  });

  it('gets OUT_OF_RANGE with a clear message for a Sum beyond int32', async () => {
    const result = await curl(['-d', '{"values":[2147483647,1]}', method('Sum')]);
    assert.notEqual(result.exitCode, 0);
    const [error] = jsonDocuments(result.stderr) as { code: string; message: string }[];
    assert.deepEqual(error, { code: 'out_of_range', message: 'sum 2147483648 does not fit in int32 (-2147483648 to 2147483647)' });
  });

  it('streams DoubleEcho from stdin and gets every message twice in order', async () => {
    const payloads = Array.from({ length: 500 }, (_, i) => `b${i}`);
    const stdin = payloads.map((payload) => JSON.stringify({ payload })).join('\n');
    const result = await curl(['-d', '@-', method('DoubleEcho')], stdin);
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(
      jsonDocuments(result.stdout),
      payloads.flatMap((payload) => [{ payload }, { payload }]),
    );
  });

  it('checks health through reflection alone', async () => {
    const result = await curl(['-d', '{"service":"test_service.TestService"}', '{url}/grpc.health.v1.Health/Check']);
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(jsonDocuments(result.stdout), [{ status: 'SERVING' }]);
  });

  it('sees the interop metadata echo as a response header and a trailer', async () => {
    const result = await curl([
      '-v',
      '-H',
      'x-grpc-test-echo-initial: from-buf',
      '-H',
      'x-grpc-test-echo-trailing-bin: AAEC',
      '-d',
      '{"payload":"md"}',
      method('Echo'),
    ]);
    assert.equal(result.exitCode, 0, result.stderr);
    assert.match(result.stderr, /< \(#\d+\) X-Grpc-Test-Echo-Initial: from-buf/i);
    assert.match(result.stderr, /< \(#\d+\) X-Grpc-Test-Echo-Trailing-Bin: AAEC/i);
  });
});
