import { FILTER_EVENT_TYPES, type FilterEvent, type FilterEventType } from './filter-events.ts';

/**
 * Event schemas may change; stored events never do. Each event records in its metadata the version of
 * its type's data schema it was written in, and every reader (command handler, projector, time travel)
 * reads stored events through `readFilterEvent`, which brings older versions up to the current one.
 *
 * To change a schema: raise the type's version below, write the new shape in filter-events.ts, and add
 * the upcaster that reads the previous version as the new one to FILTER_UPCASTERS.
 */
export const FILTER_EVENT_VERSIONS: Readonly<Record<FilterEventType, number>> = {
  FilterCreated: 1,
  FilterUpdated: 1,
  KeywordsUpdated: 2,
  StatusFiltered: 1,
  StatusUnfiltered: 1,
  FilterDeleted: 1,
};

type EventData = Readonly<Record<string, unknown>>;

/** Reads the data of version n as version n + 1. */
export type Upcaster = (data: EventData) => EventData;

/** `upcasters[type][n]` reads version n of that type as version n + 1. */
export type Upcasters = Partial<Record<FilterEventType, Readonly<Record<number, Upcaster>>>>;

export const FILTER_UPCASTERS: Upcasters = {
  // Version 1 carried the filter's whole keyword list after the change; it reads as a change that
  // replaces every keyword with that list, so logs written before deltas fold to the same keywords.
  KeywordsUpdated: {
    1: (data) => {
      const next = without(data, 'keywords');
      next.removed = [];
      next.changed = [];
      next.added = Array.isArray(data.keywords) ? data.keywords : [];
      next.replacesAll = true;
      return next;
    },
  },
};

/**
 * A new object of `data`'s own fields but one, each defined as an own field (a stored `__proto__` stays a
 * field), to which the upcaster then assigns its fields. Object rest and spread (`({ keywords, ...rest })
 * => ({ ...rest, ... })`) make the same object about ten times slower in V8: that upcaster was 6% of a
 * rebuild of the bench's log, whose keyword events are all of version 1.
 */
function without(data: EventData, dropped: string): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    if (key !== dropped) Object.defineProperty(kept, key, { value: data[key], enumerable: true, writable: true, configurable: true });
  }
  return kept;
}

export interface StoredEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

/** Events written before versions were recorded are version 1. */
export function schemaVersionOf(metadata: unknown): number {
  const version = (metadata as { schemaVersion?: unknown } | null)?.schemaVersion;
  return typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : 1;
}

const isKnownType = (type: string): type is FilterEventType => (FILTER_EVENT_TYPES as readonly string[]).includes(type);

/**
 * A reader of stored events: the event in its current shape, or null for one this code cannot read (a
 * type or a version it does not know, written by a newer release during a rolling deploy), which every
 * reader then skips. Refuses at once an upcaster chain with a gap, which could never be read.
 */
export function filterEventReader(
  upcasters: Upcasters = FILTER_UPCASTERS,
  versions: Readonly<Record<FilterEventType, number>> = FILTER_EVENT_VERSIONS,
): (stored: StoredEvent) => FilterEvent | null {
  for (const type of FILTER_EVENT_TYPES) {
    for (let version = 1; version < versions[type]; version += 1) {
      if (!upcasters[type]?.[version]) throw new Error(`no upcaster reads ${type} version ${version} as version ${version + 1}`);
    }
  }
  return (stored) => {
    if (!isKnownType(stored.type) || typeof stored.data !== 'object' || stored.data === null) return null;
    const current = versions[stored.type];
    let version = schemaVersionOf(stored.metadata);
    if (version > current) return null;
    let data = stored.data as EventData;
    for (; version < current; version += 1) data = upcasters[stored.type]![version]!(data);
    return { type: stored.type, data } as FilterEvent;
  };
}

export const readFilterEvent = filterEventReader();
