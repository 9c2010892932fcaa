/**
 * The webmail's lock on a login name's password logins (Roundcube's login_rate_limit): a port whose
 * adapters live with the webmail's stores (src/webmail/sessions/). The OAuth consent page never consults
 * it: app sign-in is throttled, not locked (src/oauth/sign-in-throttle.ts). Keys are login names, known
 * or not (`localLoginKey`, `imap:<name>`), so a lock tells nobody whether an account exists.
 */
export interface LoginRateLimit {
  isLocked(key: string): Promise<boolean>;
  /** Counts one failure: in the running window, or as the first of a new one once the old one is over. */
  recordFailure(key: string): Promise<void>;
  /** A successful login clears the name's counter. */
  forget(key: string): Promise<void>;
  close(): Promise<void>;
}
