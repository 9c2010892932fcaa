import assert from 'node:assert/strict';
import { NodeProcess } from '../support/node-process.ts';
import { runCommand } from '../support/run-cli.ts';

const check = (port: number) => runCommand(process.execPath, ['--import', 'tsx', 'src/rpc/health-check.ts'], { RPC_PORT: String(port) });

// The compose health check of the gRPC process asks grpc.health.v1, not just whether a TCP port opens.
describe('the gRPC container health check (src/rpc/health-check.ts)', function () {
  this.timeout(90_000);

  it('exits 0 while the server reports SERVING, and 1 once nothing serves on the port', async () => {
    const rpc = NodeProcess.start('src/rpc/main.ts', { RPC_HOST: '127.0.0.1', RPC_PORT: '0' });
    try {
      const { port } = (await rpc.waitForLog((line) => line.event === 'listening')) as { port: number };
      const healthy = await check(port);
      assert.equal(healthy.code, 0, healthy.stderr);
      assert.equal(await rpc.kill('SIGTERM'), 0);
      assert.equal((await check(port)).code, 1);
    } finally {
      await rpc.kill('SIGKILL');
    }
  });
});
