import { readFileSync } from 'node:fs';

/** Roundcube's `[d-M-Y H:i:s O]: ` prefix. */
export const LOG_DATE = String.raw`\[\d{2}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}\]: `;

export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The line numbers in a source file where `marker` occurs, read from the file itself, so the tests
 * check that the log names the line that really raised the error.
 */
export function linesOf(file: string, marker: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) => (text.includes(marker) ? [i + 1] : []));
}

const [CHECK_LINE, LOGIN_CHECK_LINE] = linesOf('src/webmail/request-check.ts', 'this.errors.raise(loggedRequest(request), SECURITY_CHECK_FAILED)');
const [COMPOSE_LINE] = linesOf('src/webmail/actions/send-action.ts', 'services.errors.raise(loggedRequest(request), INVALID_COMPOSE_ID)');

function errorLine(session: string, message: string, where: string, method: string, uri: string): RegExp {
  const prefix = session === '' ? String.raw`<[0-9a-v]{8}>` : `<${escapeRegex(session.slice(0, 8))}>`;
  return new RegExp(`^${LOG_DATE}${prefix} PHP Error: ${message} in ${where} \\(${method} ${escapeRegex(uri)}\\)$`);
}

/** The whole errors.log line of a refused request token; `session` '' accepts any session id. */
export function securityCheckLine(session: string, method: string, uri: string, login = false): RegExp {
  const line = login ? LOGIN_CHECK_LINE : CHECK_LINE;
  return errorLine(session, 'Request security check failed', `src/webmail/request-check\\.ts on line ${line}`, method, uri);
}

export function invalidComposeLine(session: string, uri: string): RegExp {
  return errorLine(session, 'Invalid compose ID', `src/webmail/actions/send-action\\.ts on line ${COMPOSE_LINE}`, 'POST', uri);
}

export function failedLoginLine(user: string, session: string, error: number): RegExp {
  return new RegExp(
    `^${LOG_DATE}<${session.slice(0, 8)}> Failed login for ${escapeRegex(user)} from 127\\.0\\.0\\.1 in session ${session.slice(0, 16)} \\(error: ${error}\\)$`,
  );
}
