/**
 * Dates as people read them. The server knows no reader's zone: it writes UTC and says so, and the page
 * script rewrites each `<time>` in the browser's zone. A reply's quote header is written once, on the
 * server, in the zone the script sent along (`_tz`), else in UTC.
 */

/** An IANA zone name the runtime knows, or null. */
export function knownZone(name: string | undefined): string | null {
  if (!name || name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A list's date without script: `2026-11-27 16:34 UTC`. */
export const shortDate = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** `Fri, 27 Nov 2026 at 17:34` in `zone`, with ` UTC` when that is the zone (as a person dates a letter). */
export function writtenDate(iso: string, zone: string | null): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone ?? 'UTC',
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  const written = `${parts.weekday}, ${parts.day} ${parts.month} ${parts.year} at ${parts.hour}:${parts.minute}`;
  return zone === null || zone === 'UTC' ? `${written} UTC` : written;
}
