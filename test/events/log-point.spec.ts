import assert from 'node:assert/strict';
import type { RecordedEvent } from '../../src/events/event-store.ts';
import { isAtOrBefore, isSince, parseLogPoint } from '../../src/events/log-point.ts';

const at = (position: bigint, recordedAt: string) => ({ position, recordedAt }) as RecordedEvent;

describe('Log points', () => {
  it('reads digits as a global position and ISO-8601 as a time', () => {
    assert.deepEqual(parseLogPoint('42'), { position: 42n });
    assert.deepEqual(parseLogPoint('18446744073709551615'), { position: 2n ** 64n - 1n });
    assert.deepEqual(parseLogPoint((2n ** 128n - 1n).toString()), { position: 2n ** 128n - 1n });
    assert.deepEqual(parseLogPoint('2026-11-22T10:00:00Z'), { time: new Date('2026-11-22T10:00:00Z') });
    assert.deepEqual(parseLogPoint('2026-11-22T10:00:00.250+02:00'), { time: new Date('2026-11-22T08:00:00.250Z') });
    assert.deepEqual(parseLogPoint('2026-11-22'), { time: new Date('2026-11-22T00:00:00Z') });
  });

  it('reads a time without a zone as UTC, as a date alone, whatever the zone of the machine', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      assert.deepEqual(parseLogPoint('2026-11-22T10:00:00'), { time: new Date('2026-11-22T10:00:00Z') });
      assert.deepEqual(parseLogPoint('2026-11-22 10:00'), { time: new Date('2026-11-22T10:00:00Z') });
      assert.deepEqual(parseLogPoint('2026-11-22'), { time: new Date('2026-11-22T00:00:00Z') });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('refuses anything else', () => {
    for (const text of ['', 'yesterday', '-1', '12abc', '1'.repeat(40), '2026-13-45T99:00:00Z', '{"$gt":""}']) assert.equal(parseLogPoint(text), null, text);
  });

  it('counts a position as of inclusively and since exclusively; a time inclusively both ways', () => {
    const event = at(5n, '2026-11-22T10:00:00.000Z');
    assert.equal(isAtOrBefore(event, { position: 5n }), true);
    assert.equal(isAtOrBefore(event, { position: 4n }), false);
    assert.equal(isSince(event, { position: 5n }), false);
    assert.equal(isSince(event, { position: 4n }), true);
    assert.equal(isAtOrBefore(event, { time: new Date('2026-11-22T10:00:00.000Z') }), true);
    assert.equal(isSince(event, { time: new Date('2026-11-22T10:00:00.000Z') }), true);
    assert.equal(isSince(event, { time: new Date('2026-11-22T10:00:00.001Z') }), false);
  });
});
