import { randomUUID } from 'node:crypto';

/** One write a writer sent, with its own X-Request-Id so the log can be searched for it. */
export interface SentWrite {
  readonly kind: 'POST' | 'PUT' | 'DELETE';
  readonly requestId: string;
  /** The filter's title (a POST's is unique per request: a second filter of that title is a duplicate). */
  readonly title: string;
  readonly status: number;
  /** When the answer came. */
  readonly at: number;
}

/** A read right after an acknowledged write that did not show it, with that write. */
export interface StaleRead {
  readonly what: string;
  readonly write: SentWrite;
}

interface Answer {
  readonly status: number;
  readonly body: any;
}

/**
 * A writer through `own` of one account's filters, until `stop()`: POSTs WITHOUT Idempotency-Key, PUTs that
 * add a keyword, DELETEs of every other filter. After each acknowledged write it reads the filter back
 * through `own` and through `other` (another API process on the same stores): each answer is the
 * write's own, so what the reads miss is a broken read-your-writes, told in `staleReads` with the write. A
 * 503 is kept in `sent` (its outcome may be unknown); any other status, and a fetch that fails, is in `misses`.
 */
export function twoProcessWriter(own: string, other: string, token: string, tag: string) {
  const sent: SentWrite[] = [];
  const misses: string[] = [];
  const staleReads: StaleRead[] = [];
  let stopped = false;
  const call = async (url: string, method: string, path: string, body?: unknown, requestId = randomUUID()): Promise<Answer> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const write = async (kind: SentWrite['kind'], path: string, title: string, body?: unknown): Promise<Answer & { sent: SentWrite }> => {
    const requestId = randomUUID();
    const answer = await call(own, kind, path, body, requestId);
    const made = { kind, requestId, title, status: answer.status, at: Date.now() };
    sent.push(made);
    if (answer.status !== 200 && answer.status !== 503) misses.push(`${kind} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return { ...answer, sent: made };
  };
  /** The filter as both processes show it right after the acknowledged `write`. */
  const readBack = async (id: string, write: SentWrite, sees: (answer: Answer) => boolean) => {
    for (const [name, url] of [
      ['same process', own],
      ['other process', other],
    ] as const) {
      const seen = await call(url, 'GET', `/api/v2/filters/${id}`);
      if (!sees(seen)) staleReads.push({ what: `${name} after ${write.kind} ${write.title}: ${seen.status} ${JSON.stringify(seen.body)}`, write });
    }
  };
  const done = (async () => {
    for (let n = 0; !stopped; n += 1) {
      const title = `${tag}-${n}-${randomUUID().slice(0, 8)}`;
      const created = await write('POST', '/api/v2/filters', title, { title, context: ['home'], keywords_attributes: [{ keyword: `first${n}` }] });
      if (created.status !== 200) continue;
      const id = String(created.body.id);
      await readBack(id, created.sent, (a) => a.status === 200 && a.body.title === title);
      const keyword = `added${n}`;
      const put = await write('PUT', `/api/v2/filters/${id}`, title, { keywords_attributes: [{ keyword }] });
      if (put.status === 200)
        await readBack(id, put.sent, (a) => a.status === 200 && (a.body.keywords as { keyword: string }[]).some((k) => k.keyword === keyword));
      if (n % 2 === 1) {
        const deleted = await write('DELETE', `/api/v2/filters/${id}`, title);
        if (deleted.status === 200) await readBack(id, deleted.sent, (a) => a.status === 404);
      }
    }
  })().catch((error: unknown) => void misses.push(`writer ${tag} stopped: ${String(error)}`));
  return {
    sent,
    misses,
    staleReads,
    acknowledged: () => sent.filter((s) => s.status === 200).length,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
