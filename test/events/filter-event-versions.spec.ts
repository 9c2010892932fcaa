import assert from 'node:assert/strict';
import {
  FILTER_EVENT_VERSIONS,
  FILTER_UPCASTERS,
  filterEventReader,
  readFilterEvent,
  schemaVersionOf,
  type Upcasters,
} from '../../src/events/filter-event-versions.ts';

const now = '2026-11-22T10:00:00.000Z';
const updated = { filterId: '1', title: 't', context: ['home'], action: 'hide', expiresAt: null, updatedAt: now };

// A made-up history of FilterUpdated: version 1 named the list `contexts`, version 2 had `irreversible`
// where version 3 (the current one here) has `action`.
const versions = { ...FILTER_EVENT_VERSIONS, FilterUpdated: 3 };
const upcasters: Upcasters = {
  ...FILTER_UPCASTERS,
  FilterUpdated: {
    1: ({ contexts, ...rest }) => ({ ...rest, context: contexts }),
    2: ({ irreversible, ...rest }) => ({ ...rest, action: irreversible ? 'hide' : 'warn' }),
  },
};
const readEvolved = filterEventReader(upcasters, versions);

describe('Reading stored filter events (schema versions and upcasting)', () => {
  it('reads an event of the current version as it was stored', () => {
    assert.deepEqual(readFilterEvent({ type: 'FilterUpdated', data: updated, metadata: { schemaVersion: 1 } }), { type: 'FilterUpdated', data: updated });
  });

  it('takes an event stored without a version as version 1', () => {
    assert.equal(schemaVersionOf({}), 1);
    assert.equal(schemaVersionOf(null), 1);
    assert.equal(schemaVersionOf({ schemaVersion: 'x' }), 1);
    assert.equal(schemaVersionOf({ schemaVersion: 0 }), 1);
    assert.equal(schemaVersionOf({ schemaVersion: 1.5 }), 1);
    assert.equal(schemaVersionOf({ schemaVersion: 4 }), 4);
    assert.deepEqual(readFilterEvent({ type: 'FilterUpdated', data: updated, metadata: null }), { type: 'FilterUpdated', data: updated });
  });

  it('skips a type it does not know, a version newer than it knows, and data that is not an object', () => {
    assert.equal(readFilterEvent({ type: 'FilterRenamedInTheFuture', data: {}, metadata: {} }), null);
    assert.equal(readFilterEvent({ type: 'toString', data: {}, metadata: {} }), null);
    assert.equal(readFilterEvent({ type: 'FilterUpdated', data: updated, metadata: { schemaVersion: 2 } }), null);
    assert.equal(readFilterEvent({ type: 'FilterUpdated', data: null, metadata: {} }), null);
    assert.equal(readFilterEvent({ type: 'FilterUpdated', data: 'x', metadata: {} }), null);
  });

  it('upcasts an old version through every later one, and leaves the current version alone', () => {
    const v1 = { filterId: '1', title: 't', contexts: ['home'], irreversible: true, expiresAt: null, updatedAt: now };
    const v2 = { filterId: '1', title: 't', context: ['home'], irreversible: false, expiresAt: null, updatedAt: now };
    assert.deepEqual(readEvolved({ type: 'FilterUpdated', data: v1, metadata: { schemaVersion: 1 } }), { type: 'FilterUpdated', data: updated });
    assert.deepEqual(readEvolved({ type: 'FilterUpdated', data: v2, metadata: { schemaVersion: 2 } }), {
      type: 'FilterUpdated',
      data: { ...updated, action: 'warn' },
    });
    assert.deepEqual(readEvolved({ type: 'FilterUpdated', data: updated, metadata: { schemaVersion: 3 } }), { type: 'FilterUpdated', data: updated });
    assert.equal(readEvolved({ type: 'FilterUpdated', data: updated, metadata: { schemaVersion: 4 } }), null);
    const deleted = { filterId: '1', deletedAt: now };
    assert.deepEqual(readEvolved({ type: 'FilterDeleted', data: deleted, metadata: {} }), { type: 'FilterDeleted', data: deleted });
  });

  it('refuses an upcaster chain with a gap when the reader is made', () => {
    assert.throws(
      () => filterEventReader({ ...FILTER_UPCASTERS, FilterUpdated: { 1: (d) => d } }, versions),
      /no upcaster reads FilterUpdated version 2 as version 3/,
    );
    assert.throws(() => filterEventReader({}, { ...FILTER_EVENT_VERSIONS, KeywordsUpdated: 3 }), /KeywordsUpdated version 1/);
    assert.doesNotThrow(() => filterEventReader());
  });

  it('reads a version 1 KeywordsUpdated as a change replacing every keyword, every other field kept, a stored __proto__ key a plain field', () => {
    const keywords = [{ id: 'k1', keyword: 'spoiler', wholeWord: true }];
    // As JSON.parse leaves it: `__proto__` an own field of the stored data, never the object's prototype.
    const stored = JSON.parse(
      `{"filterId":"1","keywords":${JSON.stringify(keywords)},"updatedAt":"${now}","note":"kept","__proto__":{"polluted":true}}`,
    ) as object;
    const read = readFilterEvent({ type: 'KeywordsUpdated', data: stored, metadata: { schemaVersion: 1 } });
    assert.ok(read && read.type === 'KeywordsUpdated');
    const data = read.data as unknown as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.equal(data.polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(data, '__proto__')?.value, { polluted: true });
    assert.deepEqual(Object.keys(data).sort(), ['__proto__', 'added', 'changed', 'filterId', 'note', 'removed', 'replacesAll', 'updatedAt'].sort());
    assert.deepEqual(
      [data.filterId, data.updatedAt, data.note, data.added, data.removed, data.changed, data.replacesAll],
      ['1', now, 'kept', keywords, [], [], true],
    );
    // A version 1 event whose list is missing or not a list adds nothing.
    const odd = readFilterEvent({ type: 'KeywordsUpdated', data: { filterId: '1', keywords: 'x', updatedAt: now }, metadata: { schemaVersion: 1 } });
    assert.deepEqual(odd?.data, { filterId: '1', updatedAt: now, removed: [], changed: [], added: [], replacesAll: true });
  });
});
