import { resolve } from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly natsUrl: string | undefined;
  readonly logLevel: string;
  readonly eventStoreUrl: string | undefined;
  readonly mongodbUrl: string | undefined;
  /** False for HTTP processes of a scaled-out topology: a separate `npm run projector` keeps the read models. */
  readonly projector: boolean;
  /** How long a projector's lease lasts without renewal; a crashed projector's lease is taken over after it. */
  readonly projectorLeaseMs: number;
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${value}`);
  return port;
}

function switchFrom(value: string | undefined, fallback: boolean, name: string): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new Error(`${name} must be on or off, got ${value}`);
}

function millisFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value.trim() === '') return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 300 || ms > 600_000) throw new Error(`${name} must be milliseconds from 300 to 600000, got ${value}`);
  return ms;
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
    projector: switchFrom(env.PROJECTOR, true, 'PROJECTOR'),
    projectorLeaseMs: millisFrom(env.PROJECTOR_LEASE_MS, 10_000, 'PROJECTOR_LEASE_MS'),
  };
}
