import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorLog, loggedUri } from '../../src/webmail/logs/error-log.ts';
import { formatLogDate } from '../../src/webmail/logs/log-file.ts';
import { LoginError, LoginLog } from '../../src/webmail/logs/login-log.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const AT = new Date(2026, 10, 22, 6, 52, 34);

function zone(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  return `${offset < 0 ? '-' : '+'}${hours}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
}

describe('webmail logs', () => {
  it('date lines like PHP date("d-M-Y H:i:s O") in local time', () => {
    assert.equal(formatLogDate(AT), `22-Nov-2026 06:52:34 ${zone(AT)}`);
    assert.equal(formatLogDate(new Date(2027, 0, 5, 23, 4, 5)).slice(0, 20), '05-Jan-2027 23:04:05');
  });

  it('write an error with the file and line that raised it, and the session and request', () => {
    const dir = scratchDir();
    const log = new ErrorLog(dir, () => AT);
    // raise() must report the line of its call: the line just above the one this Error is made on.
    log.raise({ method: 'POST', uri: '/webmail/?_task=mail&_action=refresh', sessionId: 'ti98ukfp0qasnk0u' }, 'Request security check failed');
    const line = Number(new Error().stack!.split('\n')[1]!.match(/:(\d+):\d+\)?$/)![1]) - 1;
    assert.equal(
      readFileSync(join(dir, 'errors.log'), 'utf8'),
      `[22-Nov-2026 06:52:34 ${zone(AT)}]: <ti98ukfp> PHP Error: Request security check failed in test/webmail/logs.spec.ts on line ${line} (POST /webmail/?_task=mail&_action=refresh)\n`,
    );
  });

  it('append _task/_action from a POST body to the URI unless the query has them, and strip tags', () => {
    const post = { method: 'POST', sessionId: undefined, bodyAction: 'send', bodyTask: 'mail' };
    assert.equal(
      loggedUri({ ...post, uri: '/webmail/?_task=mail&_unlock=loading1&_framed=1' }),
      '/webmail/?_task=mail&_unlock=loading1&_framed=1&_action=send',
    );
    assert.equal(loggedUri({ ...post, uri: '/webmail/' }), '/webmail/?_task=mail&_action=send');
    assert.equal(loggedUri({ ...post, method: 'GET', uri: '/webmail/?_task=logout&_token=<b>x</b>' }), '/webmail/?_task=logout&_token=x');
  });

  it('keep a forged line break in a username out of userlogins.log', () => {
    const dir = scratchDir();
    const log = new LoginLog(dir, () => AT);
    log.failed('mallory\n[22-Nov-2026 06:52:34 +0000]: Failed login for x from 10.0.0.1', '127.0.0.1', 'abcdefghijklmnopqrstuv1234', LoginError.failed);
    const lines = readFileSync(join(dir, 'userlogins.log'), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^\[[^\]]+\]: <abcdefgh> Failed login for mallory\?\[.* from 127\.0\.0\.1 in session abcdefghijklmnop \(error: 0\)$/);
  });
});
