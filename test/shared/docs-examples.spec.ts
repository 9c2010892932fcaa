import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

describe('examples in the docs', () => {
  it('shows the durable timeline subscriber exactly as the tests run it', () => {
    const page = read('docs/timeline-services.md');
    const block = /```ts\n(import \{ AckPolicy[\s\S]*?)```/.exec(page)?.[1];
    assert.ok(block, 'docs/timeline-services.md has the subscriber');
    assert.equal(block, read('test/support/durable-timeline-subscriber.ts'));
  });
});
