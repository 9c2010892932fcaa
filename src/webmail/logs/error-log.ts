import { RoundcubeLogFile } from './log-file.ts';
import { callerLocation } from './source-location.ts';

/** What the errors log records about the request during which an error was raised. */
export type LoggedRequest = {
  readonly method: string;
  /** The request URI as received, path prefix and query string included. */
  readonly uri: string;
  readonly sessionId: string | undefined;
  /** `_task` and `_action` sent in a POST body. */
  readonly bodyTask?: string | undefined;
  readonly bodyAction?: string | undefined;
};

/**
 * The request as Roundcube's log_bug prints it: for a POST, `_task` and `_action` that came in the body
 * and are not in the query string are appended, so `POST /webmail/?_task=mail&_unlock=..&_action=send`
 * tells which action failed. Tags are stripped like PHP's strip_tags.
 */
export function loggedUri(request: LoggedRequest): string {
  let uri = request.uri.replace(/<[^>]*>?/g, '');
  if (request.method === 'POST') {
    const query = new URLSearchParams(uri.split('?')[1] ?? '');
    const extra = new URLSearchParams();
    if (request.bodyTask && !query.has('_task')) extra.set('_task', request.bodyTask);
    if (request.bodyAction && !query.has('_action')) extra.set('_action', request.bodyAction);
    if (extra.size > 0) uri += `${uri.includes('?') ? '&' : '?'}${extra.toString()}`;
  }
  return uri;
}

/**
 * `<LOG_DIR>/errors.log` in Roundcube's file format, one line per error:
 * `[22-Nov-2026 06:52:34 +0000]: <ti98ukfp> PHP Error: <message> in <file> on line <n> (<METHOD> <uri>)`.
 */
export class ErrorLog {
  private readonly file: RoundcubeLogFile;

  constructor(logDir: string, now: () => Date = () => new Date()) {
    this.file = new RoundcubeLogFile(logDir, 'errors.log', now);
  }

  get path(): string {
    return this.file.path;
  }

  /** Records `message` as raised at the line that called this method, like Roundcube 1.7's raise_error. */
  raise(request: LoggedRequest, message: string, type: 'PHP' | 'SMTP' | 'IMAP' = 'PHP'): void {
    const where = callerLocation(1);
    const session = request.sessionId ? `<${request.sessionId.slice(0, 8)}> ` : '';
    const entry = `${session}${type} Error: ${message} in ${where.file} on line ${where.line} (${request.method} ${loggedUri(request)})`;
    this.file.append(entry);
  }
}
