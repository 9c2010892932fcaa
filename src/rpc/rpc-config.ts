/** Settings of the gRPC TestService process, read from the environment (see README "gRPC TestService"). */
export type RpcConfig = {
  readonly host: string;
  readonly port: number;
  readonly maxReceiveMessageBytes: number;
  readonly maxSendMessageBytes: number;
  readonly shutdownGraceMs: number;
  readonly logLevel: string;
};

/** grpc-js's own receive default; C-core clients (Python, C++) also refuse bigger replies by default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

function integerFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${raw}`);
  }
  return value;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function logLevelFrom(env: NodeJS.ProcessEnv): string {
  const level = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${level}`);
  return level;
}

export function loadRpcConfig(env: NodeJS.ProcessEnv = process.env): RpcConfig {
  return {
    host: env.RPC_HOST?.trim() || '0.0.0.0',
    port: integerFrom(env, 'RPC_PORT', 50051, 0, 65535),
    maxReceiveMessageBytes: integerFrom(env, 'RPC_MAX_RECEIVE_MESSAGE_BYTES', DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
    maxSendMessageBytes: integerFrom(env, 'RPC_MAX_SEND_MESSAGE_BYTES', DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
    shutdownGraceMs: integerFrom(env, 'RPC_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    logLevel: logLevelFrom(env),
  };
}
