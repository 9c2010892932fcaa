import { Ajv, type ErrorObject } from 'ajv';
import type { FilterResult } from './filter-result.ts';
import type { MatchableStatus } from './searchable-text.ts';

/** The most statuses one request may carry, on NATS and HTTP alike. */
export const MAX_STATUSES_PER_REQUEST = 200;
/** The longest spoiler text, content (HTML), poll option or media description accepted, in characters. */
export const MAX_TEXT_LENGTH = 100_000;
/** The most poll options or media descriptions per status. */
export const MAX_PARTS = 100;

export const MATCH_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;

export interface MatchRequest {
  readonly statuses: readonly MatchableStatus[];
  readonly context?: (typeof MATCH_CONTEXTS)[number];
}

/** `{"results": {"<status id>": [FilterResult, ...]}}`: every requested status, `[]` when none applies. */
export interface MatchResponse {
  readonly results: Record<string, readonly FilterResult[]>;
}

// Ids as Mastodon's: strings of digits. Unknown keys are ignored, so a caller may pass whole Status objects.
const id = { type: 'string', pattern: '^[0-9]{1,19}$' };
const text = { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH };
const texts = (items: object) => ({ type: ['array', 'null'], maxItems: MAX_PARTS, items });

const ajv = new Ajv({ allErrors: false, strict: false });

const validate = ajv.compile<MatchRequest>({
  type: 'object',
  required: ['statuses'],
  properties: {
    statuses: {
      type: 'array',
      maxItems: MAX_STATUSES_PER_REQUEST,
      items: {
        type: 'object',
        required: ['id'],
        properties: {
          id,
          reblog_of_id: { anyOf: [id, { type: 'null' }] },
          spoiler_text: text,
          content: text,
          poll_options: texts({ type: 'string', maxLength: MAX_TEXT_LENGTH }),
          media_descriptions: texts(text),
        },
      },
    },
    context: { enum: MATCH_CONTEXTS },
  },
});

export class BadMatchRequest extends Error {
  override readonly name = 'BadMatchRequest';
}

/** `/statuses/3/content` -> `statuses[3].content`. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').filter((p) => p !== '');
  const path = parts.map((p, i) => (/^[0-9]+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
  if (missing !== undefined) return path === '' ? missing : `${path}.${missing}`;
  return path === '' ? 'body' : path;
}

function problemOf(error: ErrorObject): string {
  const field = fieldOf(error);
  if (error.keyword === 'required') return `${field} is missing`;
  if (error.keyword === 'maxItems' && field === 'statuses') return `statuses holds more than ${MAX_STATUSES_PER_REQUEST} statuses`;
  if (error.keyword === 'maxItems') return `${field} holds more than ${MAX_PARTS} items`;
  if (error.keyword === 'maxLength') return `${field} is longer than ${MAX_TEXT_LENGTH} characters`;
  if (error.keyword === 'enum') return `${field} must be one of ${MATCH_CONTEXTS.join(', ')}`;
  return `${field} is invalid`;
}

/** The request as the matcher takes it, or BadMatchRequest naming the first problem. */
export function checkedMatchRequest(body: unknown): MatchRequest {
  if (validate(body)) return body;
  throw new BadMatchRequest(problemOf(validate.errors![0]!));
}
