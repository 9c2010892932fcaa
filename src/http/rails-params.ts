/**
 * Builds nested parameters from flat form fields the way Rails (Rack) does, which is what Mastodon
 * clients send: `context[]=home` appends to a list, `a[b]=1` sets a key, and in `a[][id]=1&a[][keyword]=x`
 * a new hash starts only when the last one already has that key.
 */
export type Params = { [key: string]: ParamValue };
export type ParamValue = string | ParamValue[] | Params;

const isHash = (value: ParamValue | undefined): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `a[b][]` -> ['a', 'b', '']; a malformed name is kept whole as a plain key. */
function splitName(name: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return [name];
  const rest = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
  return [match[1]!, ...rest];
}

function hasPath(hash: Params, path: readonly string[]): boolean {
  const [head, ...rest] = path;
  if (head === undefined || head === '' || !(head in hash)) return false;
  if (rest.length === 0) return true;
  const child = hash[head];
  return isHash(child) && hasPath(child, rest);
}

function assign(target: Params, path: readonly string[], value: string): void {
  const [key, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    target[key] = value;
    return;
  }
  const [next, ...after] = rest as [string, ...string[]];
  if (next === '') {
    const list = Array.isArray(target[key]) ? (target[key] as ParamValue[]) : (target[key] = []);
    if (after.length === 0) {
      list.push(value);
      return;
    }
    const last = list.at(-1);
    if (isHash(last) && !hasPath(last, after)) assign(last, after, value);
    else {
      const fresh: Params = {};
      assign(fresh, after, value);
      list.push(fresh);
    }
    return;
  }
  const child = isHash(target[key]) ? (target[key] as Params) : (target[key] = {});
  assign(child, rest, value);
}

export function railsParams(pairs: Iterable<readonly [string, string]>): Params {
  const params: Params = {};
  for (const [name, value] of pairs) {
    if (name === '') continue;
    assign(params, splitName(name), value);
  }
  return params;
}
