import assert from 'node:assert/strict';
import { FILTER_LIMITS } from '../../src/commands/filter/filter-limits.ts';
import { filtersApi, newOwner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const FULL = FILTER_LIMITS.keywordCharactersPerFilter;
const FIT = FILTER_LIMITS.keywordCharactersPerAccount / FULL;
const ACCOUNT_MESSAGE = `Validation failed: Keywords are too long together (maximum is ${FILTER_LIMITS.keywordCharactersPerAccount} characters per account)`;
/** A filter holding the per-filter maximum of keyword characters, in keywords of 500. */
const fullFilter = (title: string) => ({
  title,
  context: ['home'],
  keywords_attributes: Array.from({ length: FULL / 500 }, (_, i) => ({ keyword: `${i}`.padEnd(500, 'k') })),
});

describe('The per-account limits with the projector down (issue 27 item 9)', function () {
  this.timeout(240_000);
  const processes: NodeProcess[] = [];

  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
  });

  it(`given two API processes and no projector, when 8 creates of ${FULL} keyword characters arrive at once, then exactly ${FIT} are stored`, async () => {
    const dir = scratchDir();
    const owner = await newOwner(dir);
    // No projector anywhere: the read models stay empty, and every write waits its 5 s for them in vain.
    const env = { DATA_DIR: dir, PROJECTOR: 'off', RATE_LIMITS: 'off' };
    const apis = [NodeProcess.start('src/main.ts', env), NodeProcess.start('src/main.ts', env)];
    processes.push(...apis);
    const clients = await Promise.all(apis.map(async (api) => filtersApi(await api.url(), owner.token)));

    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => clients[i % 2]!.post('/api/v2/filters', fullFilter(`full ${i}`))));
    const created = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 422);
    // A create that lost every retry of its race answers 409 and stores nothing; its room goes to the next.
    const conflicts = answers.filter((a) => a.status === 409);
    assert.equal(created.length + refused.length + conflicts.length, 8, JSON.stringify(answers.map((a) => a.status)));
    assert.ok(created.length <= FIT, `${created.length} creates passed the limit together`);
    for (const answer of refused) assert.deepEqual(answer.body, { error: ACCOUNT_MESSAGE });
    let stored = created.length;
    for (let i = 0; ; i += 1) {
      const next = await clients[i % 2]!.post('/api/v2/filters', fullFilter(`after ${i}`));
      if (next.status !== 200) break;
      stored += 1;
    }
    assert.equal(stored, FIT);
    // Either process refuses even one more character, still without a projector.
    for (const client of clients) {
      const more = await client.post('/api/v2/filters', { title: 'one more', context: ['home'], keywords_attributes: [{ keyword: 'x' }] });
      assert.deepEqual(more, { status: 422, body: { error: ACCOUNT_MESSAGE } });
    }
  });
});
