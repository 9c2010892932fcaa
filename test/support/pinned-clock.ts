/**
 * A clock for the rate-limit windows that never moves: one second into the next hour, where every
 * window (5, 10 and 15 minutes, the sign-in's hour) has just begun, so a test never straddles a window's
 * end. Ahead of the real clock, so that every window ends in the real future: the counter stores expire
 * keys by the real clock (Redis PEXPIREAT, the SQLite sweep, Mongo's TTL index).
 */
export function pinnedClock(): () => number {
  const hour = 3_600_000;
  const pinned = Math.ceil(Date.now() / hour) * hour + 1000;
  return () => pinned;
}
