import assert from 'node:assert/strict';
import { startBareEchoServer } from '../../bench/bare-echo-server.ts';
import { startRpcServer, type RunningRpcServer } from '../../src/rpc/rpc-server.ts';
import { preparePythonClient, runPythonClient } from './support/python-client.ts';
import { streamsClosed } from './support/streams-closed.ts';

// 8,000 messages of 1 KiB offered for 2.5 s: HTTP/2 windows hold about 2,000 of them, so a server
// that stops reading holds the client back well below HELD_BACK; one that reads on lets far more through.
const SLOW_READER = ['8000', '1024', '2.5'];
const HELD_BACK = 4000;
// The control may take its time on a busy machine: the client stops waiting once all 8,000 are offered.
const SLOW_READER_CONTROL = ['8000', '1024', '30'];

describe('TestService through Python grpcio (an outside C-core client)', function () {
  this.timeout(60_000);
  let server: RunningRpcServer;
  let stubs = '';

  before(async function () {
    const prepared = await preparePythonClient();
    if ('missing' in prepared) {
      console.log(`      skipped: the Python gRPC client is not available: ${prepared.missing}`);
      this.skip();
    }
    stubs = prepared.stubs;
    server = await startRpcServer({ port: 0 });
  });
  after(() => server?.forceShutdown());

  it('makes unary calls, gzip calls, metadata-echo calls and streams', async () => {
    assert.deepEqual(await runPythonClient(stubs, ['calls', server.target]), {
      echo: 'hello from python ☃',
      gzipEchoLength: 100_000,
      sum: 6,
      emptySum: 0,
      overflow: { code: 'OUT_OF_RANGE', details: 'sum 2147483648 does not fit in int32 (-2147483648 to 2147483647)' },
      initialMetadata: { 'x-grpc-test-echo-initial': 'py-initial' },
      trailingBin: [[0, 1, 254]],
      streamReplies: 2000,
      streamInOrder: true,
      emptyStreamReplies: 0,
    });
  });

  it('stops reading a DoubleEcho whose client does not read, so the client is held back, then delivers every reply', async () => {
    const result = await runPythonClient(stubs, ['slow-reader', server.target, ...SLOW_READER]);
    console.log(`      flow control held the client at ${String(result.offeredWhileStalled)} of ${String(result.offered)} messages`);
    assert.ok(Number(result.offeredWhileStalled) < HELD_BACK, `the server kept reading: ${JSON.stringify(result)}`);
    assert.deepEqual({ replies: result.replies, inOrder: result.inOrder, code: result.code }, { replies: 16000, inOrder: true, code: 'OK' });
    await streamsClosed(server);
  });

  it('control: a server that ignores write() === false lets the same client push everything', async () => {
    const bare = await startBareEchoServer();
    try {
      const result = await runPythonClient(stubs, ['slow-reader', bare.target, ...SLOW_READER_CONTROL]);
      console.log(`      without flow control the client pushed ${String(result.offeredWhileStalled)} of ${String(result.offered)} messages`);
      assert.ok(
        Number(result.offeredWhileStalled) > HELD_BACK,
        `the check above would not notice a server that reads without limit: ${JSON.stringify(result)}`,
      );
    } finally {
      bare.stop();
    }
  });
});
