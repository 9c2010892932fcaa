/**
 * The automaton's transitions, (state, symbol) -> child state, in one open-addressing hash table: memory
 * proportional to the number of edges (the trie's states), whatever the alphabet. At most half full, so
 * a lookup probes about two slots. Child states are never 0 (the root), so 0 means "no edge".
 */
export class EdgeTable {
  private readonly states: Int32Array;
  private readonly symbols: Int32Array;
  private readonly targets: Int32Array;
  private readonly mask: number;

  constructor(maxEdges: number) {
    let capacity = 8;
    while (capacity < maxEdges * 2) capacity *= 2;
    this.states = new Int32Array(capacity);
    this.symbols = new Int32Array(capacity);
    this.targets = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** The child of `state` on `symbol`, or 0. */
  get(state: number, symbol: number): number {
    const { states, symbols, targets, mask } = this;
    for (let slot = slotOf(state, symbol) & mask; ; slot = (slot + 1) & mask) {
      const target = targets[slot]!;
      if (target === 0 || (states[slot] === state && symbols[slot] === symbol)) return target;
    }
  }

  /** Adds an edge that is not there yet (the trie only ever adds). */
  add(state: number, symbol: number, target: number): void {
    const { targets, mask } = this;
    let slot = slotOf(state, symbol) & mask;
    while (targets[slot] !== 0) slot = (slot + 1) & mask;
    this.states[slot] = state;
    this.symbols[slot] = symbol;
    targets[slot] = target;
  }

  /** In 4-byte units. */
  get size(): number {
    return this.targets.length * 3;
  }
}

function slotOf(state: number, symbol: number): number {
  const h = Math.imul(state, 0x9e3779b1) ^ Math.imul(symbol + 0x7f4a7c15, 0x85ebca6b);
  return h ^ (h >>> 15);
}
