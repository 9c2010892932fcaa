import { readFileSync } from 'node:fs';
import { credsAuthenticator, type ConnectionOptions } from 'nats';
import { redactUrl } from '../shared/redact.ts';

/** How to reach and log in to NATS: what NATS deployments use (user and password, token, .creds file, TLS). */
export interface NatsSettings {
  /** One server or several, comma-separated; `nats://user:password@host` or `nats://token@host` carry credentials. */
  readonly url: string;
  /** NATS_TOKEN: the server's `authorization { token }`. */
  readonly token?: string | undefined;
  /** NATS_CREDS: a `.creds` file (user JWT and NKEY seed), for servers run in operator (JWT) mode. */
  readonly credsFile?: string | undefined;
  /** NATS_TLS_CA: the CA that signed the server's certificate; setting it requires TLS. */
  readonly tlsCaFile?: string | undefined;
}

/** Thrown while building the options (a .creds file that cannot be read): a start that cannot go on. */
export class NatsSettingsError extends Error {
  override readonly name = 'NatsSettingsError';
}

interface Credentials {
  user?: string;
  pass?: string;
  token?: string;
}

/**
 * nats.js ignores the user-info of a server URL, so it is taken out here and handed to the client as
 * options; the servers are then given without it (and are safe to log). A lone name before `@` is a
 * token, as the NATS tools read `nats://<token>@host`.
 */
function splitServers(url: string): { servers: string[]; credentials: Credentials } {
  const credentials: Credentials = {};
  const servers = url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '')
    .map((server) => {
      const match = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#@]*)@(.*)$/i.exec(server);
      if (!match) return server;
      const [, scheme = '', userInfo = '', rest = ''] = match;
      const colon = userInfo.indexOf(':');
      if (credentials.user === undefined && credentials.token === undefined) {
        if (colon >= 0) {
          credentials.user = decodeURIComponent(userInfo.slice(0, colon));
          credentials.pass = decodeURIComponent(userInfo.slice(colon + 1));
        } else if (userInfo !== '') credentials.token = decodeURIComponent(userInfo);
      }
      return `${scheme}${rest}`;
    });
  return { servers, credentials };
}

/**
 * A server that stops answering (cut off by the network, a stopped VM or process) keeps its TCP connection
 * open, so only pings tell: nats.js pings every `pingInterval` and drops the connection as stale when
 * `maxPingOut` pings are unanswered at the next one, i.e. between 2 and 3 intervals after the server
 * froze (10-15 s here; with nats.js's defaults, 2 minutes and 2, between 4 and 6 minutes). It then
 * reconnects to another server of NATS_URL or of those the cluster announced (INFO `connect_urls`).
 * A server under load answers a ping in milliseconds: 10 s without any answer is no slow server.
 */
export const NATS_PING_INTERVAL_MS = 5000;
export const NATS_MAX_PINGS_OUT = 2;
/**
 * A dial (TCP, INFO, CONNECT and its PONG; TLS included) longer than this is given up. A stopped server's
 * kernel still accepts the TCP connection, so without it a reconnect that tries that server again first
 * (nats.js keeps the given servers ahead of the announced ones) would wait nats.js's 20 s for an INFO.
 */
export const NATS_DIAL_TIMEOUT_MS = 5000;

function readCreds(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new NatsSettingsError(`cannot read NATS_CREDS file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * The one place where NATS connection options are built from the settings: every NATS connection of the
 * project (announcements, the matching responder) calls it, and adds only its own name and reconnect policy.
 */
export function natsConnectionOptions(settings: NatsSettings | string): ConnectionOptions {
  const given: NatsSettings = typeof settings === 'string' ? { url: settings } : settings;
  const { servers, credentials } = splitServers(given.url);
  const options: ConnectionOptions = { servers, pingInterval: NATS_PING_INTERVAL_MS, maxPingOut: NATS_MAX_PINGS_OUT, timeout: NATS_DIAL_TIMEOUT_MS };
  if (credentials.user !== undefined) Object.assign(options, { user: credentials.user, pass: credentials.pass });
  const token = given.token ?? credentials.token;
  if (token !== undefined) options.token = token;
  if (given.credsFile !== undefined) {
    const creds = readCreds(given.credsFile);
    options.authenticator = credsAuthenticator(creds);
  }
  if (given.tlsCaFile !== undefined) options.tls = { caFile: given.tlsCaFile };
  else if (servers.some((server) => /^tls:\/\//i.test(server))) options.tls = {};
  return options;
}

/** For log lines and messages: the servers, never a credential. */
export const describeNats = (settings: NatsSettings | string): string => redactUrl(typeof settings === 'string' ? settings : settings.url);
