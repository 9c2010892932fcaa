import { LOG_LEVEL_SETTING, type LogLevel } from '../shared/logger.ts';
import { settingReader, type SettingTable } from '../shared/setting-table.ts';

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

/** Every variable loadRpcConfig reads, in the order the gRPC process's --help lists them (docs/grpc.md). */
export const RPC_SETTING_TABLE = {
  RPC_PORT: { fallback: '50051', meaning: 'port (0: the OS chooses)', read: (s, name) => s.port(name, 50051) },
  RPC_HOST: { fallback: '0.0.0.0', meaning: 'address to listen on', read: (s, name) => s.text(name, '0.0.0.0') },
  RPC_MAX_RECEIVE_MESSAGE_BYTES: {
    fallback: String(DEFAULT_MAX_MESSAGE_BYTES),
    meaning: 'largest request message',
    read: (s, name) => s.integer(name, DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
  },
  RPC_MAX_SEND_MESSAGE_BYTES: {
    fallback: String(DEFAULT_MAX_MESSAGE_BYTES),
    meaning: 'largest reply message',
    read: (s, name) => s.integer(name, DEFAULT_MAX_MESSAGE_BYTES, 1, 2 ** 31 - 1),
  },
  RPC_SHUTDOWN_GRACE_MS: {
    fallback: '10000',
    meaning: 'how long in-flight calls may take to finish after SIGTERM/SIGINT',
    read: (s, name) => s.integer(name, 10_000, 0, 3_600_000),
  },
  LOG_LEVEL: LOG_LEVEL_SETTING,
} satisfies SettingTable;

export function loadRpcConfig(env: NodeJS.ProcessEnv = process.env): RpcConfig {
  const read = settingReader(RPC_SETTING_TABLE, env);
  return {
    host: read('RPC_HOST'),
    port: read('RPC_PORT'),
    maxReceiveMessageBytes: read('RPC_MAX_RECEIVE_MESSAGE_BYTES'),
    maxSendMessageBytes: read('RPC_MAX_SEND_MESSAGE_BYTES'),
    shutdownGraceMs: read('RPC_SHUTDOWN_GRACE_MS'),
    logLevel: read('LOG_LEVEL'),
  };
}
