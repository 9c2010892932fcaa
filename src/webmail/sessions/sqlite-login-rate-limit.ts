import type { SqliteDatabase } from '../../shared/sqlite.ts';
import { isLockedBy, type FailureWindow, type LoginRateLimit, type RateLimitPolicy } from './login-rate-limit.ts';

/**
 * The counters in `webmail-sessions.sqlite` (table `login_failures`): every process on the data
 * directory reads and writes the same rows, and they outlive a restart.
 */
export class SqliteLoginRateLimit implements LoginRateLimit {
  private readonly now: () => number;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly policy: RateLimitPolicy,
  ) {
    this.now = policy.now ?? Date.now;
  }

  async isLocked(accountId: string): Promise<boolean> {
    const row = this.db
      .prepare<[string], FailureWindow>('SELECT window_start AS start, failures FROM login_failures WHERE account_id = ?')
      .get(String(accountId));
    return isLockedBy(row ?? null, this.policy, this.now());
  }

  /** One statement, so two processes counting at once neither lose a failure nor both start a window. */
  async recordFailure(accountId: string): Promise<void> {
    const now = this.now();
    this.sweep(now);
    const young = 'excluded.window_start - login_failures.window_start < ?';
    this.db
      .prepare(
        `INSERT INTO login_failures (account_id, window_start, failures) VALUES (?, ?, 1)
         ON CONFLICT (account_id) DO UPDATE SET
           failures = CASE WHEN ${young} THEN login_failures.failures + 1 ELSE 1 END,
           window_start = CASE WHEN ${young} THEN login_failures.window_start ELSE excluded.window_start END`,
      )
      .run(String(accountId), now, this.policy.windowMillis, this.policy.windowMillis);
  }

  /**
   * Unknown names are counted too, so anyone can add rows: those whose window is over (they lock
   * nothing, and a new failure would start afresh) go, at most once per window. The table then holds
   * about two windows' worth of failing names, each of which cost its sender a password hash.
   */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.policy.windowMillis) return;
    this.lastSweep = now;
    this.db.prepare('DELETE FROM login_failures WHERE window_start <= ?').run(now - this.policy.windowMillis);
  }

  async forget(accountId: string): Promise<void> {
    this.db.prepare('DELETE FROM login_failures WHERE account_id = ?').run(String(accountId));
  }

  /** The database belongs to whoever opened it (it also holds the sessions). */
  async close(): Promise<void> {}
}
