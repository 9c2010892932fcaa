import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metadata, ServerCredentials, status } from '@grpc/grpc-js';
import { scratchDir } from './scratch-dir.ts';

/**
 * A secured EventStoreDB protocol STAND-IN (not a server): TLS with a certificate from a CA made for it,
 * and users checked on every call, as on a secure 24.10 node. The client sends credentials only over TLS.
 * Reading $all or any `$` stream needs a member of $admins; other streams any authenticated user
 * (EventStore/EventStore v24.10.0 src/EventStore.Core/Authorization/LegacyStreamPermissionAssertion.cs:
 * $all and system streams fall under the $admins-only system ACL, user streams under the default ACL).
 */
export interface StandInUser {
  readonly password: string;
  readonly admin: boolean;
}

export const STAND_IN_USERS: Readonly<Record<string, StandInUser>> = {
  admin: { password: 'changeit', admin: true },
  ops: { password: 'changeit', admin: false },
};

export interface Tls {
  readonly credentials: ServerCredentials;
  /** The CA certificate (PEM): what a client trusts, as `tlsCAFile` or `rootCertificate`. */
  readonly caFile: string;
  readonly root: Buffer;
}

/** A CA and a node certificate for 127.0.0.1 and localhost, made with openssl in a fresh directory. */
export function standInTls(): Tls {
  const dir = scratchDir('esdb-tls-');
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=esdb-stand-in-ca');
  ssl('req', ...ec, '-keyout', 'node.key', '-out', 'node.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl('x509', '-req', '-in', 'node.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'node.crt', '-days', '2', '-extfile', 'san.ext');
  const root = readFileSync(join(dir, 'ca.crt'));
  const credentials = ServerCredentials.createSsl(
    root,
    [{ private_key: readFileSync(join(dir, 'node.key')), cert_chain: readFileSync(join(dir, 'node.crt')) }],
    false,
  );
  return { credentials, caFile: join(dir, 'ca.crt'), root };
}

export type Access = { readonly ok: true } | { readonly ok: false; readonly error: Error };

function refused(code: status, details: string, exception?: string): Access {
  const metadata = new Metadata();
  if (exception) metadata.set('exception', exception);
  return { ok: false, error: Object.assign(new Error(details), { code, details, metadata }) };
}

/** Who the call's Basic credentials name, checked against the users; null for an anonymous call. */
function caller(metadata: Metadata): { name: string; user: StandInUser } | 'bad' | null {
  const header = metadata.get('authorization')[0];
  if (typeof header !== 'string') return null;
  const [name, password] = Buffer.from(header.replace(/^Basic /, ''), 'base64')
    .toString('utf8')
    .split(':');
  const user = name === undefined ? undefined : STAND_IN_USERS[name];
  return user && user.password === password ? { name: name!, user } : 'bad';
}

/** Whether the call may touch `stream` (`$all` for the global log). Bad credentials are UNAUTHENTICATED. */
export function checkAccess(metadata: Metadata, stream: string): Access {
  const who = caller(metadata);
  if (who === 'bad') return refused(status.UNAUTHENTICATED, 'Bad username or password');
  if (who === null) return refused(status.PERMISSION_DENIED, 'Access Denied', 'access-denied');
  if (stream.startsWith('$') && !who.user.admin) return refused(status.PERMISSION_DENIED, 'Access Denied', 'access-denied');
  return { ok: true };
}
