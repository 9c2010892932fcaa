import { logLevelSetting, type LogLevel } from '../shared/logger.ts';
import { Settings } from '../shared/settings.ts';

/** Settings of the gRPC TestService process, read from the environment (see docs/grpc.md). */
export type RpcConfig = {
  readonly host: string;
  readonly port: number;
  readonly maxReceiveMessageBytes: number;
  readonly maxSendMessageBytes: number;
  readonly shutdownGraceMs: number;
  readonly logLevel: LogLevel;
};

/** grpc-js's own receive default; C-core clients (Python, C++) also refuse bigger replies by default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export function loadRpcConfig(env: NodeJS.ProcessEnv = process.env): RpcConfig {
  const settings = new Settings(env);
  return {
    host: settings.text('RPC_HOST', '0.0.0.0'),
    port: settings.port('RPC_PORT', 50051),
    maxReceiveMessageBytes: settings.integer('RPC_MAX_RECEIVE_MESSAGE_BYTES', DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
    maxSendMessageBytes: settings.integer('RPC_MAX_SEND_MESSAGE_BYTES', DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
    shutdownGraceMs: settings.integer('RPC_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    logLevel: logLevelSetting(settings),
  };
}
