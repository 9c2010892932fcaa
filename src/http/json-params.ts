import { HttpError } from './http-errors.ts';
import { isPrototypeKey, PARAM_LIMITS, tooDeep, tooManyItems, tooManyParams, unmetered, type ParseMeter } from './param-limits.ts';
import { newParams, type Params, type ParamValue } from './rails-params.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonParams = { [key: string]: JsonParamValue };
export type JsonParamValue = null | boolean | number | string | JsonParamValue[] | JsonParams;

const unreadable = () => new HttpError(400, 'Error occurred while parsing request parameters');

/**
 * A parsed JSON body as request parameters, under the same rules as form bodies: objects without a
 * prototype and without `__proto__`, `constructor` or `prototype` keys, and the same limits on depth,
 * value count and list length. JSON's own types are kept (true stays a boolean).
 */
export function jsonParams(body: unknown, meter: ParseMeter = unmetered): JsonParams {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unreadable();
  let count = 0;
  // `brackets`: how many brackets the form name of `value` would have (`a` 0, `a[b]` 1).
  const copy = (value: Json, brackets: number): JsonParamValue => {
    meter.step();
    count += 1;
    if (count > PARAM_LIMITS.params) throw tooManyParams();
    if (typeof value !== 'object' || value === null) return value;
    if (brackets + 1 > PARAM_LIMITS.depth) throw tooDeep();
    if (Array.isArray(value)) {
      if (value.length > PARAM_LIMITS.listItems) throw tooManyItems();
      return value.map((item) => copy(item, brackets + 1));
    }
    return copyObject(value, brackets + 1);
  };
  const copyObject = (object: { [key: string]: Json }, brackets: number): JsonParams => {
    const result = newParams() as unknown as JsonParams;
    for (const key of Object.keys(object)) {
      if (!isPrototypeKey(key)) result[key] = copy(object[key]!, brackets);
    }
    return result;
  };
  return copyObject(body as { [key: string]: Json }, 0);
}

export type AnyParams = Params | JsonParams;
export type AnyParamValue = ParamValue | JsonParamValue;
