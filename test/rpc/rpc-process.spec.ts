import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startRpcServer } from '../../src/rpc/rpc-server.ts';
import { collect, nextReplies, openDoubleEcho, testClient, unary } from './support/rpc-client.ts';
import { RpcProcess } from './support/rpc-process.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('TestService process (npm run rpc)', function () {
  this.timeout(90_000);
  const started: RpcProcess[] = [];
  const start = (env: Record<string, string> = {}) => {
    const rpc = new RpcProcess(env);
    started.push(rpc);
    return rpc;
  };
  afterEach(() => started.splice(0).forEach((rpc) => rpc.kill()));

  it('is what `npm run rpc` starts, there compiled to dist/', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    // The build check runs inside the script (one npm banner, see docs/operations.md), then the compiled service.
    assert.match(pkg.scripts.rpc ?? '', /^node scripts\/build\.js --if-stale && exec node --enable-source-maps dist\/rpc\/main\.js$/);
  });

  it('on SIGTERM lets an in-flight stream finish, refuses new calls, then exits 0', async () => {
    const rpc = start();
    const client = testClient(await rpc.target());
    const call = openDoubleEcho(client);
    const first = nextReplies(call, 2);
    call.write({ payload: 'before' });
    assert.deepEqual(await first, ['before', 'before']);

    rpc.signal('SIGTERM');
    await rpc.logged('shutdown');
    const late = testClient(await rpc.target());
    await assert.rejects(unary(late, 'Echo', { payload: 'too late' }), (e: ServiceError) => e.code === status.UNAVAILABLE);
    late.close();

    const after = nextReplies(call, 2);
    call.write({ payload: 'during shutdown' });
    assert.deepEqual(await after, ['during shutdown', 'during shutdown']);
    const outcome = collect(call);
    call.end();
    assert.equal((await outcome).status.code, status.OK);
    assert.equal(await rpc.exited, 0);
    assert.equal((await rpc.logged('stopped')).outcome, 'drained');
    client.close();
  });

  it('on SIGINT cuts a stream that outlives RPC_SHUTDOWN_GRACE_MS, then exits 0', async () => {
    const rpc = start({ RPC_SHUTDOWN_GRACE_MS: '300' });
    const client = testClient(await rpc.target());
    const call = openDoubleEcho(client);
    const outcome = collect(call);
    const first = nextReplies(call, 2);
    call.write({ payload: 'never half-closed' });
    await first;
    rpc.signal('SIGINT');
    assert.notEqual((await outcome).status.code, status.OK);
    assert.equal(await rpc.exited, 0);
    assert.equal((await rpc.logged('stopped')).outcome, 'forced');
    client.close();
  });

  it('writes JSON log lines: startup with its limits, and one line per call at LOG_LEVEL=debug', async () => {
    const rpc = start({ LOG_LEVEL: 'debug', RPC_MAX_RECEIVE_MESSAGE_BYTES: '2048' });
    const listening = await rpc.logged('listening');
    assert.equal(listening.maxReceiveMessageBytes, 2048);
    assert.equal(listening.name, 'rpc-test-service');
    assert.equal(typeof listening.hostname, 'string');
    const client = testClient(await rpc.target());
    await unary(client, 'Echo', { payload: 'logged' });
    await assert.rejects(unary(client, 'Echo', { payload: 'x'.repeat(4096) }));
    client.close();
    const calls = () => rpc.lines.filter((line) => line.event === 'call');
    await waitUntil(() => calls().length >= 2, 'a log line for each call');
    assert.deepEqual(
      calls().map((line) => [line.method, line.code]),
      [
        ['/test_service.TestService/Echo', status.OK],
        // grpc-js refuses the oversized message itself; interceptors only learn that the call ended.
        ['/test_service.TestService/Echo', null],
      ],
    );
    rpc.signal('SIGTERM');
    assert.equal(await rpc.exited, 0);
  });

  it('exits 1 with a fatal log line for a bad setting', async () => {
    const rpc = start({ RPC_PORT: 'abc' });
    assert.equal(await rpc.exited, 1);
    assert.match(String((await rpc.logged('bad_config')).msg), /RPC_PORT must be an integer/);
    assert.equal(rpc.lines.length, 1);
  });

  it('exits 1 with a fatal log line when the port is taken', async () => {
    const holder = await startRpcServer({ port: 0 });
    try {
      const rpc = start({ RPC_PORT: String(holder.port) });
      assert.equal(await rpc.exited, 1);
      assert.equal((await rpc.logged('start_failed')).port, holder.port);
      assert.match(String((await rpc.logged('grpc_js')).msg), /No address added/, 'grpc-js errors come out as JSON too');
    } finally {
      holder.forceShutdown();
    }
  });
});
