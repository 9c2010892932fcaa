import { randomUUID } from 'node:crypto';
import type { Owner } from '../../support/filters-api.ts';

/** What became of each request a writer sent: its own X-Request-Id, so the log can be searched for it. */
export interface Sent {
  readonly requestId: string;
  readonly accountId: string;
  /** `changed`: answered 200 to a request that changes something; `unchanged`: a no-op or refused one; `unknown`: no answer (killed). */
  readonly outcome: 'changed' | 'unchanged' | 'unknown';
}

/**
 * One owner's burst of requests until `stop()` or until the service stops answering: creates a filter,
 * adds a keyword, sends a no-op update and an invalid one, deletes the filter, and again.
 */
export function writeBurst(baseUrl: string, owner: Owner, sent: Sent[]): { stop: () => void; done: Promise<void> } {
  let stopped = false;
  const call = async (method: string, path: string, body: unknown, changes: boolean, status = 200): Promise<any> => {
    const requestId = randomUUID();
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer: unknown = await response.json();
      if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      sent.push({ requestId, accountId: owner.accountId, outcome: changes ? 'changed' : 'unchanged' });
      return answer;
    } catch (error) {
      if (error instanceof Error && /^(PUT|POST|DELETE|GET) /.test(error.message)) throw error;
      sent.push({ requestId, accountId: owner.accountId, outcome: changes ? 'unknown' : 'unchanged' });
      stopped = true;
      return null;
    }
  };
  const done = (async () => {
    for (let i = 0; !stopped; i += 1) {
      const filter = await call('POST', '/api/v2/filters', { title: `t${i}`, context: ['home'] }, true);
      if (!filter) return;
      await call('POST', `/api/v2/filters/${filter.id}/keywords`, { keyword: `k${i}` }, true);
      await call('PUT', `/api/v2/filters/${filter.id}`, { title: `t${i}` }, false);
      await call('PUT', `/api/v2/filters/${filter.id}`, { context: ['nowhere'] }, false, 422);
      if (i % 2 === 0) await call('DELETE', `/api/v2/filters/${filter.id}`, undefined, true);
    }
  })();
  return { stop: () => (stopped = true), done };
}
