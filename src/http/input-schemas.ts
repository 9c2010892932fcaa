import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { HttpError } from './http-errors.ts';

/**
 * Shapes of request parameters, checked with ajv before any command is built. Like Rails' strong
 * parameters, unknown keys are ignored; values arrive as JSON types or as form strings, so scalars
 * accept both and the handlers cast them.
 */
const scalar = { type: ['string', 'number'] };
// In a keywords_attributes row null is blank, as in Rails: a null id adds a keyword, a null keyword is
// blank. masto.js types both as nullable, so clients may well send them.
const nullableScalar = { type: ['string', 'number', 'null'] };
const flag = { type: ['boolean', 'string', 'number', 'null'] };
/** What `flag` lets through: Rails casts it to a boolean (railsBoolean). */
export type FlagValue = boolean | string | number | null;
// Any value is accepted here: a list must hold strings, and anything that is not a list counts as blank
// (contextList in input-values.ts), which is Mastodon's 422.
const contextList = { if: { type: 'array' }, then: { items: { type: 'string' } } };
const expiresIn = { type: ['string', 'number', 'null'] };
const keywordAttributes = {
  type: 'object',
  properties: { id: nullableScalar, keyword: nullableScalar, whole_word: flag, _destroy: flag },
};

export interface KeywordAttributesInput {
  id?: string | number | null;
  keyword?: string | number | null;
  whole_word?: FlagValue;
  _destroy?: FlagValue;
}

export interface V2FilterInput {
  title?: string | number;
  context?: unknown;
  filter_action?: string;
  expires_in?: string | number | null;
  keywords_attributes?: KeywordAttributesInput[] | Record<string, KeywordAttributesInput>;
}

export interface KeywordInput {
  keyword?: string | number;
  whole_word?: FlagValue;
}

export interface StatusInput {
  status_id?: string | number;
}

export interface V1FilterInput {
  phrase?: string | number;
  context?: unknown;
  irreversible?: FlagValue;
  whole_word?: FlagValue;
  expires_in?: string | number | null;
}

const ajv = new Ajv({ allErrors: true, strict: false });

export const v2FilterInput = ajv.compile<V2FilterInput>({
  type: 'object',
  properties: {
    title: scalar,
    context: contextList,
    filter_action: { type: 'string' },
    expires_in: expiresIn,
    keywords_attributes: {
      anyOf: [
        { type: 'array', items: keywordAttributes },
        { type: 'object', additionalProperties: keywordAttributes },
      ],
    },
  },
});

export const keywordInput = ajv.compile<KeywordInput>({ type: 'object', properties: { keyword: scalar, whole_word: flag } });

export const statusInput = ajv.compile<StatusInput>({ type: 'object', properties: { status_id: scalar } });

export const v1FilterInput = ajv.compile<V1FilterInput>({
  type: 'object',
  properties: { phrase: scalar, context: contextList, irreversible: flag, whole_word: flag, expires_in: expiresIn },
});

/** `/keywords_attributes/0/keyword` -> `keywords_attributes[0][keyword]`, the name a client sent. */
function parameterName(error: ErrorObject): string {
  const [first, ...rest] = error.instancePath.split('/').filter((p) => p !== '');
  return first === undefined ? 'body' : `${first}${rest.map((p) => `[${p}]`).join('')}`;
}

export function checked<T>(validate: ValidateFunction<T>, params: unknown): T {
  if (validate(params)) return params;
  const all = [...new Set((validate.errors ?? []).map(parameterName))];
  // anyOf reports the whole parameter as well as the part that failed: name only the part.
  const names = all.filter((name) => !all.some((other) => other.startsWith(`${name}[`)));
  throw new HttpError(422, `Validation failed: ${names.map((n) => `${n} is invalid`).join(', ')}`);
}
