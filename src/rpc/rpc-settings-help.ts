import type { SettingHelp } from '../shared/process-help.ts';

/** Every variable loadRpcConfig reads, for the gRPC process's --help (docs/grpc.md). */
export const RPC_SETTINGS: readonly SettingHelp[] = [
  { name: 'RPC_PORT', fallback: '50051', meaning: 'port (0: the OS chooses)' },
  { name: 'RPC_HOST', fallback: '0.0.0.0', meaning: 'address to listen on' },
  { name: 'RPC_MAX_RECEIVE_MESSAGE_BYTES', fallback: '4194304', meaning: 'largest request message' },
  { name: 'RPC_MAX_SEND_MESSAGE_BYTES', fallback: '4194304', meaning: 'largest reply message' },
  { name: 'RPC_SHUTDOWN_GRACE_MS', fallback: '10000', meaning: 'how long in-flight calls may take to finish after SIGTERM/SIGINT' },
  { name: 'LOG_LEVEL', fallback: 'info', meaning: 'trace, debug, info, warn, error, fatal or silent' },
];
