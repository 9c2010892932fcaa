/**
 * Counts the characters that string searches look at while `run` runs: what a search by `indexOf`,
 * `includes` or a regex reads up to its hit (or the end), and one per single-character read. A measure
 * of work that does not depend on how busy the machine is, so that "linear" can be asserted.
 */
export function charactersScanned(run: () => void): number {
  let scanned = 0;
  const strings = String.prototype;
  // Taken off the prototypes to be called with .call and put back: `this` is always given.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const saved = { indexOf: strings.indexOf, includes: strings.includes, startsWith: strings.startsWith, charCodeAt: strings.charCodeAt };
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const savedExec = RegExp.prototype.exec;
  strings.indexOf = function (this: string, search: string, from = 0) {
    const found = saved.indexOf.call(this, search, from);
    scanned += (found < 0 ? this.length : found + search.length) - Math.max(0, from);
    return found;
  };
  strings.includes = function (this: string, search: string, from = 0) {
    const found = saved.indexOf.call(this, search, from);
    scanned += (found < 0 ? this.length : found + search.length) - Math.max(0, from);
    return found >= 0;
  };
  strings.startsWith = function (this: string, search: string, from = 0) {
    scanned += search.length;
    return saved.startsWith.call(this, search, from);
  };
  strings.charCodeAt = function (this: string, index: number) {
    scanned += 1;
    return saved.charCodeAt.call(this, index);
  };
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    const found = savedExec.call(this, input);
    scanned += (found ? found.index + found[0].length : input.length) - from;
    return found;
  };
  try {
    run();
  } finally {
    Object.assign(strings, saved);
    RegExp.prototype.exec = savedExec;
  }
  return scanned;
}
