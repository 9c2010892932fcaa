import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface Listening {
  readonly server: Server;
  /** Where a client on this machine reaches it (the wildcard address becomes 127.0.0.1). */
  readonly url: string;
  /** The address the socket is bound to, as the OS reports it: `0.0.0.0:3000` listens on every interface. */
  readonly address: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. A function: it may be passed on alone. */
  readonly stop: () => Promise<void>;
}

/** Listens on host:port (port 0 picks a free one) and resolves once the socket is bound. */
export async function listen(app: Koa, port: number, host: string): Promise<Listening> {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { address, family, port: bound } = server.address() as AddressInfo;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    url: `http://${reachable}:${bound}`,
    address: family === 'IPv6' ? `[${address}]:${bound}` : `${address}:${bound}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
