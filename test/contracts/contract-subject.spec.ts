import assert from 'node:assert/strict';
import { contractSubject, type ContractFixture } from './contract-subject.ts';

/** A store that only records what happened to it: which data it was opened on, and whether it was closed. */
class RecordingStore {
  closed = false;
  constructor(readonly data: number) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Numbers each fresh data set, and remembers every store it opened. */
function recordingFixture(): Required<ContractFixture<RecordingStore>> & { readonly made: RecordingStore[] } {
  let data = 0;
  const made: RecordingStore[] = [];
  const keep = (store: RecordingStore) => {
    made.push(store);
    return store;
  };
  return {
    made,
    async open() {
      data += 1;
      return keep(new RecordingStore(data));
    },
    async openSibling(store) {
      return keep(new RecordingStore(store.data));
    },
  };
}

// The tests of one suite run in order: a later one looks at what the hooks did around an earlier one.
describe('contractSubject, the scaffold every contract suite is set up by', () => {
  const fixture = recordingFixture();

  describe('a suite set up by it', () => {
    const given = contractSubject<RecordingStore>(() => fixture);
    const earlier: RecordingStore[] = [];

    it('gives a test an open store on fresh data, a sibling on the same data and another store on data of its own', async () => {
      const [sibling, fresh] = [await given.openSibling(), await given.openFresh()];
      assert.equal(given.store.closed, false);
      assert.equal(sibling.data, given.store.data);
      assert.notEqual(fresh.data, given.store.data);
      earlier.push(given.store, sibling, fresh);
    });

    it('gives the next test a store of its own, on other data, having closed every store the last test opened', () => {
      assert.equal(earlier.length, 3);
      assert.ok(!earlier.includes(given.store));
      assert.ok(earlier.every((store) => store.data !== given.store.data));
      assert.deepEqual(
        earlier.map((store) => store.closed),
        [true, true, true],
      );
    });

    it('restarts: every store of the test closed, then the store opened again on the same data', async () => {
      const [before, sibling] = [given.store, await given.openSibling()];
      await given.restart();
      assert.deepEqual([before.closed, sibling.closed], [true, true]);
      assert.notEqual(given.store, before);
      assert.equal(given.store.data, before.data);
      assert.equal(given.store.closed, false);
    });
  });

  describe('after that suite', () => {
    it('left no store open', () => {
      assert.equal(fixture.made.length, 7, 'three stores in the first test, one in the second, three in the third');
      assert.deepEqual(
        fixture.made.filter((store) => !store.closed),
        [],
      );
    });
  });
});
