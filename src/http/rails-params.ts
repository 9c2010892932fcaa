import { isPrototypeKey, PARAM_LIMITS, tooDeep, tooManyItems, tooManyParams, unmetered, type ParseMeter } from './param-limits.ts';

/**
 * Builds nested parameters from flat form fields the way Rails (Rack) does, which is what Mastodon
 * clients send: `context[]=home` appends to a list, `a[b]=1` sets a key, and in `a[][id]=1&a[][keyword]=x`
 * a new hash starts only when the last one already has that key.
 *
 * Hashes have no prototype and never hold `__proto__`, `constructor` or `prototype` (a pair naming one is
 * dropped), and the work is linear in the input: each name is scanned once, and depth, parameter count
 * and list length are limited (param-limits.ts).
 */
export type Params = { [key: string]: ParamValue };
export type ParamValue = string | ParamValue[] | Params;

export const newParams = (): Params => Object.create(null) as Params;

const isHash = (value: ParamValue | undefined): value is Params => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `a[b][]` -> ['a', 'b', '']; a malformed name is kept whole as a plain key. One pass over the name:
 * each search starts where the last one ended.
 */
export function splitName(name: string, meter: ParseMeter = unmetered): string[] {
  const open = name.indexOf('[');
  meter.step(open === -1 ? name.length : open + 1);
  if (open <= 0 || name.lastIndexOf(']', open) !== -1) return [name];
  const segments = [name.slice(0, open)];
  for (let at = open; at < name.length;) {
    if (name[at] !== '[') return [name];
    const close = name.indexOf(']', at + 1);
    meter.step((close === -1 ? name.length : close) - at);
    if (close === -1) return [name];
    const inner = name.slice(at + 1, close);
    if (inner.includes('[')) return [name];
    if (segments.length > PARAM_LIMITS.depth) throw tooDeep();
    segments.push(inner);
    at = close + 1;
  }
  return segments;
}

/** Whether `hash` already holds `path[from..]`. */
function hasPath(hash: Params, path: readonly string[], from: number, meter: ParseMeter): boolean {
  let node: ParamValue = hash;
  for (let i = from; i < path.length; i += 1) {
    meter.step();
    const key = path[i]!;
    if (key === '' || !isHash(node) || !Object.hasOwn(node, key)) return false;
    node = node[key]!;
  }
  return true;
}

function append(list: ParamValue[], item: ParamValue): void {
  if (list.length >= PARAM_LIMITS.listItems) throw tooManyItems();
  list.push(item);
}

function assign(root: Params, path: readonly string[], value: string, meter: ParseMeter): void {
  let target = root;
  for (let i = 0; i < path.length; i += 1) {
    meter.step();
    const key = path[i]!;
    if (i === path.length - 1) {
      target[key] = value;
      return;
    }
    if (path[i + 1] !== '') {
      const child = target[key];
      target = isHash(child) ? child : (target[key] = newParams());
      continue;
    }
    const existing = target[key];
    const list = Array.isArray(existing) ? existing : (target[key] = []);
    if (i + 2 === path.length) return append(list, value);
    const last = list.at(-1);
    if (isHash(last) && !hasPath(last, path, i + 2, meter)) target = last;
    else {
      const fresh = newParams();
      append(list, fresh);
      target = fresh;
    }
    i += 1;
  }
}

export function railsParams(pairs: Iterable<readonly [string, string]>, meter: ParseMeter = unmetered): Params {
  const params = newParams();
  let count = 0;
  for (const [name, value] of pairs) {
    if (name === '') continue;
    count += 1;
    if (count > PARAM_LIMITS.params) throw tooManyParams();
    const path = splitName(name, meter);
    if (path.some(isPrototypeKey)) continue;
    assign(params, path, value, meter);
  }
  return params;
}
