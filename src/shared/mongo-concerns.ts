import { redact } from './redact.ts';
import { BadSetting, type Settings } from './settings.ts';

/**
 * MONGODB_WRITE_CONCERN: `majority` (the default) or a number of members. An acknowledged `w:1` write
 * lives on the primary alone and is rolled back when that primary fails before a secondary copied it
 * (mongo/src/mongo/db/repl/rollback_impl.cpp); a lease, a fencing token, a checkpoint, a read model, an
 * account, a token or an idempotency key lost that way would make the service's answer a lie.
 */
export type MongoWriteConcern = 'majority' | number;

/**
 * socketTimeoutMS and connectTimeoutMS unless the URL sets them: longer than any one command of the service
 * takes on a healthy set (a majority wait included), or a connection takes to open.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Up to 50 voting members in a replica set (mongo/src/mongo/db/repl/repl_set_config.h, kMaxMembers). */
const MAX_MEMBERS = 50;

export function mongoWriteConcern(settings: Settings, name: string): MongoWriteConcern {
  const raw = settings.optional(name);
  if (raw === undefined || raw.toLowerCase() === 'majority') return 'majority';
  if (/^[1-9]\d?$/.test(raw) && Number(raw) <= MAX_MEMBERS) return Number(raw);
  throw new BadSetting(name, `majority or a number of members from 1 to ${MAX_MEMBERS}`, raw);
}

/**
 * Which reads may see only what a majority holds: with `w: majority`, reads are `majority` too, so no
 * reader is shown a write that a failover can still take back; with a number, `local`, since a
 * majority read would not see the process's own acknowledged write yet.
 */
export const readConcernFor = (w: MongoWriteConcern): 'majority' | 'local' => (w === 'majority' ? 'majority' : 'local');

/**
 * MONGODB_URL with the concerns every adapter needs set in it, so each client (API, projector, CLI) gets
 * them whatever store opens it: `w`, `readConcernLevel`, `readPreference=primary`, and `socketTimeoutMS`
 * and `connectTimeoutMS` unless the URL has them. Only the primary
 * has every acknowledged write, so a read from a secondary can miss what this very process just wrote
 * (read-your-writes); a URL asking for anything else, or for other concerns than the setting's, is
 * refused with one line naming what to change. Option names are case-insensitive in a MongoDB URL.
 */
export function mongoUrlWithConcerns(url: string, w: MongoWriteConcern): string {
  const mark = url.indexOf('?');
  const base = mark < 0 ? url : url.slice(0, mark);
  const params = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  const readConcern = readConcernFor(w);
  const wanted: Record<string, { value: string; why: string }> = {
    readpreference: { value: 'primary', why: 'only the primary has every acknowledged write (read-your-writes); remove it' },
    w: { value: String(w), why: 'set MONGODB_WRITE_CONCERN instead' },
    readconcernlevel: { value: readConcern, why: `with MONGODB_WRITE_CONCERN=${w} reads are ${readConcern}; remove it` },
  };
  for (const [key, value] of params) {
    const rule = wanted[key.toLowerCase()];
    if (rule && value !== rule.value) throw new BadSetting('MONGODB_URL', `without ${key}=${value} (${rule.why})`, redact(url));
  }
  const present = new Set([...params.keys()].map((key) => key.toLowerCase()));
  if (!present.has('w')) params.set('w', String(w));
  if (!present.has('readconcernlevel')) params.set('readConcernLevel', readConcern);
  if (!present.has('readpreference')) params.set('readPreference', 'primary');
  // The driver's defaults are no limit on a command and 30 s on a connect (which is also how long its
  // monitor waits for a heartbeat): behind a silent cut (a partition drops packets, nobody answers) a
  // request on a cut-off API host waited past a minute. With bounds, the command fails as unavailable (a
  // JSON 503; the projector retries) and the monitor finds the server gone sooner. The URL's own values
  // are kept.
  if (!present.has('sockettimeoutms')) params.set('socketTimeoutMS', String(DEFAULT_TIMEOUT_MS));
  if (!present.has('connecttimeoutms')) params.set('connectTimeoutMS', String(DEFAULT_TIMEOUT_MS));
  return `${base}?${params.toString()}`;
}
