import { countLogin } from '../../metrics/operator-metrics.ts';
import { RoundcubeLogFile } from './log-file.ts';

/** Roundcube's login error codes, as printed in `(error: <n>)`. */
export const LoginError = {
  failed: 0,
  invalidRequest: 1,
  rateLimited: 4,
} as const;
export type LoginErrorCode = (typeof LoginError)[keyof typeof LoginError];

const MAX_USER_LENGTH = 256;

/**
 * `<LOG_DIR>/userlogins.log` as Roundcube writes it with log_logins on. fail2ban's stock
 * `roundcube-auth` filter reads the failure lines, so their wording must not drift.
 */
export class LoginLog {
  private readonly file: RoundcubeLogFile;

  constructor(logDir: string, now: () => Date = () => new Date()) {
    this.file = new RoundcubeLogFile(logDir, 'userlogins.log', now);
  }

  get path(): string {
    return this.file.path;
  }

  failed(user: string, address: string, sessionId: string, error: LoginErrorCode): void {
    countLogin(error === LoginError.rateLimited ? 'rate_limited' : error === LoginError.invalidRequest ? 'invalid_request' : 'failed');
    this.write(sessionId, `Failed login for ${shorten(user)} from ${address} in session ${sessionId.slice(0, 16)} (error: ${error})`);
  }

  succeeded(user: string, accountId: string, address: string, sessionId: string): void {
    countLogin('success');
    this.write(sessionId, `Successful login for ${shorten(user)} (ID: ${accountId}) from ${address} in session ${sessionId.slice(0, 16)}`);
  }

  private write(sessionId: string, line: string): void {
    this.file.append(`<${sessionId.slice(0, 8)}> ${line}`);
  }
}

function shorten(user: string): string {
  return user.length > MAX_USER_LENGTH ? `${user.slice(0, MAX_USER_LENGTH)}...` : user;
}
