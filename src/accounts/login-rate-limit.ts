/**
 * The lock on an account's password sign-ins (the webmail's login and the OAuth consent page share it):
 * a port, kept with the accounts so that neither edge imports the other. The adapters live with the
 * webmail's stores (src/webmail/sessions/).
 */
export interface LoginRateLimit {
  isLocked(accountId: string): Promise<boolean>;
  /** Counts one failure: in the running window, or as the first of a new one once the old one is over. */
  recordFailure(accountId: string): Promise<void>;
  /** A successful login clears the account's counter. */
  forget(accountId: string): Promise<void>;
  close(): Promise<void>;
}
