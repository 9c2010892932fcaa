import type { Position } from '@eventstore/db-client';

/**
 * EventStoreDB orders $all by (commit, prepare): the events of one append share the commit position and
 * differ in the prepare position. The port wants one growing bigint per event, so both halves are packed
 * into one value whose numeric order is EventStoreDB's order: commit in the high 64 bits, prepare in the low.
 */
const PREPARE_BITS = 64n;
const PREPARE_MASK = (1n << PREPARE_BITS) - 1n;

export function packPosition({ commit, prepare }: Position): bigint {
  if (commit < 0n || prepare < 0n || prepare > PREPARE_MASK) throw new RangeError(`not an EventStoreDB position: ${commit}/${prepare}`);
  return (commit << PREPARE_BITS) | prepare;
}

export function unpackPosition(position: bigint): Position {
  return { commit: position >> PREPARE_BITS, prepare: position & PREPARE_MASK };
}

/** True when `a` comes after `b` in $all. */
export const isAfter = (a: Position, b: Position): boolean => a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare);

/**
 * A stored checkpoint as a full position. Checkpoints kept before positions were full ones hold the commit
 * position alone (the commit half is then 0). On a 24.10 server every event is its own committed record,
 * its commit position equal to its prepare position (EventStore/EventStore v24.10.0
 * src/EventStore.Core/Services/Storage/StorageChaser.cs), so such a value C is exactly position (C, C).
 */
export function checkpointPosition(value: bigint): bigint {
  const { commit, prepare } = unpackPosition(value);
  return commit === 0n && prepare > 0n ? packPosition({ commit: prepare, prepare }) : value;
}
