import { Server, ServerCredentials, type ServerOptions, type ServiceDefinition } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { callLog } from './call-log.ts';
import { doubleEcho } from './double-echo.ts';
import { loadReflectionDefinition, loadTestServiceDefinition, TEST_SERVICE_NAME } from './package-definitions.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './rpc-config.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { VERSION } from '../shared/version.ts';
import { StreamGauge } from './stream-gauge.ts';
import { echo, sum } from './unary-methods.ts';

export type RpcServerOptions = {
  /** Address to listen on; default 127.0.0.1. */
  readonly host?: string;
  /** 0 lets the OS choose; the chosen port is on the result. */
  readonly port?: number;
  readonly maxReceiveMessageBytes?: number;
  readonly maxSendMessageBytes?: number;
  readonly logger?: Logger;
};

export type ShutdownOutcome = 'drained' | 'forced';

export type RunningRpcServer = {
  readonly port: number;
  /** host:port as a client dials it. */
  readonly target: string;
  readonly streams: StreamGauge;
  /**
   * Refuses new calls, marks health NOT_SERVING, lets in-flight calls finish for up to graceMs and
   * then cancels what is left.
   */
  shutdown(graceMs: number): Promise<ShutdownOutcome>;
  /** Cancels every call now (a second signal during a graceful shutdown). */
  forceShutdown(): void;
};

/** Starts the TestService with health and reflection, listening once the promise resolves. */
export async function startRpcServer(options: RpcServerOptions = {}): Promise<RunningRpcServer> {
  const logger = options.logger ?? silentLogger;
  const server = new Server(serverOptions(options, logger));
  const streams = new StreamGauge();
  server.addService(testServiceDefinition(), { Echo: echo, Sum: sum, DoubleEcho: doubleEcho(streams) });
  const health = new HealthImplementation({ '': 'SERVING', [TEST_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  new ReflectionService(loadReflectionDefinition()).addToServer(server);

  const host = options.host ?? '127.0.0.1';
  const hostInUri = host.includes(':') ? `[${host}]` : host;
  const port = await bind(server, `${hostInUri}:${options.port ?? 0}`);
  logger.info({ event: 'listening', host, port, version: VERSION, ...limits(options) }, 'gRPC TestService listening');

  const shutdown = (graceMs: number) =>
    new Promise<ShutdownOutcome>((resolve) => {
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(TEST_SERVICE_NAME, 'NOT_SERVING');
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve('forced');
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve('drained');
      });
    });
  return { port, target: `${hostInUri}:${port}`, streams, shutdown, forceShutdown: () => server.forceShutdown() };
}

function limits(options: RpcServerOptions) {
  return {
    maxReceiveMessageBytes: options.maxReceiveMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxSendMessageBytes: options.maxSendMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  };
}

function serverOptions(options: RpcServerOptions, logger: Logger): ServerOptions {
  const { maxReceiveMessageBytes, maxSendMessageBytes } = limits(options);
  return {
    'grpc.max_receive_message_length': maxReceiveMessageBytes,
    'grpc.max_send_message_length': maxSendMessageBytes,
    interceptors: logger.isLevelEnabled('debug') ? [callLog(logger)] : [],
  };
}

function testServiceDefinition(): ServiceDefinition {
  const definition = loadTestServiceDefinition()[TEST_SERVICE_NAME];
  if (definition === undefined || !('Echo' in definition)) throw new Error(`${TEST_SERVICE_NAME} missing from the proto`);
  return definition;
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
  });
}
