import assert from 'node:assert/strict';
import { INT32_MAX, INT32_MIN, sumInt32 } from '../../src/rpc/exact-sum.ts';

describe('sumInt32', () => {
  it('gives 0 for no values', () => {
    assert.deepEqual(sumInt32([]), { fits: true, value: 0 });
  });

  it('adds negative and positive values', () => {
    assert.deepEqual(sumInt32([-5, 2, 10]), { fits: true, value: 7 });
  });

  it('accepts totals exactly at both int32 bounds', () => {
    assert.deepEqual(sumInt32([INT32_MAX]), { fits: true, value: INT32_MAX });
    assert.deepEqual(sumInt32([INT32_MIN]), { fits: true, value: INT32_MIN });
    assert.deepEqual(sumInt32([INT32_MAX - 1, 1]), { fits: true, value: INT32_MAX });
  });

  it('judges only the final total, not the running one', () => {
    assert.deepEqual(sumInt32([INT32_MAX, 1, -1]), { fits: true, value: INT32_MAX });
  });

  it('reports the exact total when it leaves int32 on either side', () => {
    assert.deepEqual(sumInt32([INT32_MAX, 1]), { fits: false, exact: 2147483648n });
    assert.deepEqual(sumInt32([INT32_MIN, -1]), { fits: false, exact: -2147483649n });
    assert.deepEqual(sumInt32([INT32_MAX, INT32_MAX]), { fits: false, exact: 4294967294n });
  });

  it('stays exact past the range where doubles lose integers', () => {
    const values = new Array<number>(5_000_000).fill(INT32_MAX);
    values.push(-1);
    assert.deepEqual(sumInt32(values), { fits: false, exact: 5_000_000n * BigInt(INT32_MAX) - 1n });
    const backInRange = [...new Array<number>(4_200_000).fill(INT32_MAX), ...new Array<number>(4_200_000).fill(-INT32_MAX), 3];
    assert.deepEqual(sumInt32(backInRange), { fits: true, value: 3 });
  });
});
