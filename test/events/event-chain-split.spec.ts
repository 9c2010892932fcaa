import assert from 'node:assert/strict';
import { join } from 'node:path';
import { verifyChains, type VerifyOutcome } from '../../src/events/chain-verify.ts';
import { parseHead } from '../../src/events/event-chain.ts';
import { SqliteChainSource } from '../../src/events/sqlite-chain-source.ts';
import { verifySqliteLog } from '../../src/events/sqlite-verify.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { changeOneByte, copyOfLog, deleteEvent, swapEvents, truncateTail, writeLog } from '../support/sqlite-log-tamper.ts';

async function oneWalk(dir: string, expect: string | null): Promise<VerifyOutcome> {
  const source = new SqliteChainSource(join(dir, 'events.sqlite'));
  try {
    return await verifyChains(source, expect === null ? null : parseHead(expect));
  } finally {
    source.close();
  }
}

/** Three threads on a ten-event log: stretches of three or four events each. */
const split = (dir: string, expect: string | null) =>
  verifySqliteLog(join(dir, 'events.sqlite'), expect === null ? null : parseHead(expect), { threads: 3, minEventsPerThread: 1 });

describe('verify of events.sqlite split over threads', function () {
  this.timeout(120_000);
  let dir: string;
  let head: string;

  before(async () => {
    dir = scratchDir();
    await writeLog(dir);
    const whole = await oneWalk(dir, null);
    assert.ok(whole.ok && whole.head);
    head = `${whole.head.position}:${whole.head.hash}`;
  });

  const cases: [string, (copy: string) => void, string | null][] = [
    ['nothing changed', () => {}, null],
    ['one byte of data in the first stretch', (copy) => changeOneByte(copy, 2n, 'data', 5), null],
    ['one byte of metadata in the last stretch', (copy) => changeOneByte(copy, 9n, 'metadata', 5), null],
    ['an event deleted where two stretches meet', (copy) => deleteEvent(copy, 4n), null],
    ['two events swapped across stretches', (copy) => swapEvents(copy, 2n, 8n), null],
    ['the tail truncated, against the head before', (copy) => truncateTail(copy, 2), 'head'],
  ];
  for (const [what, tamper, expect] of cases) {
    it(`answers as one walk does: ${what}`, async () => {
      const copy = copyOfLog(dir);
      tamper(copy);
      const given = expect === 'head' ? head : null;
      const [whole, parts] = [await oneWalk(copy, given), await split(copy, given)];
      assert.deepEqual(parts, whole);
      if (what !== 'nothing changed') assert.equal(parts.ok, false);
    });
  }
});
