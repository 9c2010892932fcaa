import { ImapFlow, type ImapFlowError } from 'imapflow';
import { MailboxUnavailable } from './mailbox.ts';

/** Where the IMAP server is, from IMAP_URL: `imap://host[:143]` (STARTTLS when offered) or `imaps://host[:993]`. */
export type ImapServer = { readonly host: string; readonly port: number; readonly secure: boolean; readonly label: string };

export function parseImapUrl(url: string): ImapServer {
  const parsed = new URL(url);
  if (parsed.protocol !== 'imap:' && parsed.protocol !== 'imaps:') throw new Error(`IMAP_URL must start with imap:// or imaps:// (got ${parsed.protocol})`);
  const secure = parsed.protocol === 'imaps:';
  const port = parsed.port ? Number(parsed.port) : secure ? 993 : 143;
  // Brackets come off IPv6 literals: the socket wants the bare address.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return { host, port, secure, label: `${parsed.protocol}//${parsed.host}` };
}

/** Bounds every wait on the server, so a hung server costs a request seconds, not forever. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 };

export const isAuthFailure = (error: unknown): boolean => (error as ImapFlowError).authenticationFailed === true;

/** A tagged NO to a command (no such mailbox, no such message): the request's fault, not the server's. */
export const isRefusal = (error: unknown): boolean => (error as ImapFlowError).responseStatus === 'NO' || (error as ImapFlowError).mailboxMissing === true;

/** Driver errors become MailboxUnavailable with the server and the cause, as Roundcube's "IMAP Error" lines name them. */
export function unavailable(server: ImapServer, error: unknown): MailboxUnavailable {
  if (error instanceof MailboxUnavailable) return error;
  const cause = error as ImapFlowError;
  const detail = cause.responseText ?? cause.code ?? cause.message ?? String(error);
  return new MailboxUnavailable(`${cause.command ?? 'connection'} to ${server.label} failed: ${detail}`);
}

/** Connects and logs in; rejects with the driver's error (the caller decides what a failure means). */
export async function connectImap(server: ImapServer, user: string, password: string): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: server.secure,
    auth: { user, pass: password },
    logger: false,
    // Without `disableAutoIdle` an idle client would start IDLE on its own between our commands.
    disableAutoIdle: true,
    ...TIMEOUTS,
  });
  // A connection dropped between commands emits 'error'; the pending command rejects on its own.
  client.on('error', () => {});
  await client.connect();
  return client;
}
