export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export type Int32Sum = { readonly fits: true; readonly value: number } | { readonly fits: false; readonly exact: bigint };

// Past this, adding one more int32 could leave the range where doubles hold every integer exactly.
const EXACT_DOUBLE_LIMIT = Number.MAX_SAFE_INTEGER - 2 ** 31;

/**
 * Adds int32 values exactly and says whether the total fits in int32. Only the final total counts:
 * [INT32_MAX, 1, -1] is fine. The encoder would otherwise wrap an out-of-range total silently.
 */
export function sumInt32(values: readonly number[]): Int32Sum {
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    total += values[i]!;
    if (Math.abs(total) > EXACT_DOUBLE_LIMIT) return judge(bigSum(values, i + 1, BigInt(total)));
  }
  return total >= INT32_MIN && total <= INT32_MAX ? { fits: true, value: total } : { fits: false, exact: BigInt(total) };
}

// Reached only when message-size limits are raised far enough for millions of extreme values.
function bigSum(values: readonly number[], from: number, start: bigint): bigint {
  let total = start;
  for (let i = from; i < values.length; i++) total += BigInt(values[i]!);
  return total;
}

function judge(total: bigint): Int32Sum {
  return total >= BigInt(INT32_MIN) && total <= BigInt(INT32_MAX) ? { fits: true, value: Number(total) } : { fits: false, exact: total };
}
