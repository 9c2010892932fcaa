import assert from 'node:assert/strict';
import { DEFAULT_MAX_MESSAGE_BYTES, loadRpcConfig } from '../../src/rpc/rpc-config.ts';

describe('RPC config', () => {
  it('defaults to port 50051 on every address with 4 MiB message limits', () => {
    assert.deepEqual(loadRpcConfig({}), {
      host: '0.0.0.0',
      port: 50051,
      maxReceiveMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
      maxSendMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
      shutdownGraceMs: 10_000,
      logLevel: 'info',
    });
  });

  it('reads every setting from its variable', () => {
    const config = loadRpcConfig({
      RPC_HOST: '127.0.0.1',
      RPC_PORT: '0',
      RPC_MAX_RECEIVE_MESSAGE_BYTES: '1024',
      RPC_MAX_SEND_MESSAGE_BYTES: '2048',
      RPC_SHUTDOWN_GRACE_MS: '500',
      LOG_LEVEL: 'debug',
    });
    assert.deepEqual(config, {
      host: '127.0.0.1',
      port: 0,
      maxReceiveMessageBytes: 1024,
      maxSendMessageBytes: 2048,
      shutdownGraceMs: 500,
      logLevel: 'debug',
    });
  });

  it('refuses a value that is not an integer in range, naming the variable', () => {
    assert.throws(() => loadRpcConfig({ RPC_PORT: 'abc' }), /RPC_PORT must be an integer from 0 to 65535, got abc/);
    assert.throws(() => loadRpcConfig({ RPC_PORT: '70000' }), /RPC_PORT/);
    assert.throws(() => loadRpcConfig({ RPC_MAX_RECEIVE_MESSAGE_BYTES: '0' }), /RPC_MAX_RECEIVE_MESSAGE_BYTES/);
    assert.throws(() => loadRpcConfig({ RPC_SHUTDOWN_GRACE_MS: '1.5' }), /RPC_SHUTDOWN_GRACE_MS/);
    assert.throws(() => loadRpcConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of trace, debug/);
  });
});
