import { resolve } from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly natsUrl: string | undefined;
  readonly logLevel: string;
  readonly eventStoreUrl: string | undefined;
  readonly mongodbUrl: string | undefined;
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${value}`);
  return port;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: portFrom(env.PORT, 3000, 'PORT'),
    host: optional(env.HOST) ?? '0.0.0.0',
    dataDir: resolve(optional(env.DATA_DIR) ?? './data'),
    natsUrl: optional(env.NATS_URL),
    logLevel: optional(env.LOG_LEVEL) ?? 'info',
    eventStoreUrl: optional(env.EVENTSTORE_URL),
    mongodbUrl: optional(env.MONGODB_URL),
  };
}
