import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDirectory } from '../../shared/directories.ts';
import { redact } from '../../shared/redact.ts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number) => String(n).padStart(2, '0');

/**
 * PHP's `date('d-M-Y H:i:s O')` in the process's local time zone, e.g. `22-Nov-2026 06:52:34 +0000`:
 * Roundcube's default log_date_format, which fail2ban's date detector and log tools expect.
 */
export function formatLogDate(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${two(Math.floor(Math.abs(offset) / 60))}${two(Math.abs(offset) % 60)}`;
  const day = `${two(date.getDate())}-${MONTHS[date.getMonth()]}-${date.getFullYear()}`;
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${zone}`;
}

/** Text from a request (a username, a URI) must not be able to start a forged line of its own. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this must find
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, '?');
}

/** One of Roundcube's log files in LOG_DIR: every line is `[<date>]: <text>`, appended at once. */
export class RoundcubeLogFile {
  readonly path: string;

  constructor(
    logDir: string,
    name: string,
    private readonly now: () => Date,
  ) {
    // 0750 with the files' 0640: the group's log readers (fail2ban, a shipper) may enter, as in
    // Roundcube's packages; under the 0700 DATA_DIR (the default LOG_DIR) nobody else can reach it.
    ensureDirectory(logDir, 0o750);
    this.path = join(logDir, name);
  }

  append(text: string): void {
    // 0640: a login log names users and addresses, not for every local account to read (as Roundcube's
    // packages create theirs). The mode applies when the file is created.
    appendFileSync(this.path, `[${formatLogDate(this.now())}]: ${oneLine(redact(text))}\n`, { mode: 0o640 });
  }
}
