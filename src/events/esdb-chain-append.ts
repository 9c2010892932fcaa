import { eventHash } from './event-chain.ts';
import { HASH_KEY, type ChainLink } from './esdb-chain-link.ts';
import type { NewEvent } from './event-store.ts';

/** The events with their hashes as the last key of their metadata (esdb-chain-link.ts). */
export function chainedEvents(stream: string, events: readonly NewEvent[], link: ChainLink): NewEvent[] {
  let previous = link.previous;
  return events.map((event, i) => {
    const metadata = event.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata) || HASH_KEY in metadata) {
      throw new TypeError(`event metadata must be an object without a ${HASH_KEY} key (the chain keeps its hash there)`);
    }
    const data = JSON.stringify(event.data);
    if (typeof data !== 'string') throw new TypeError('an event needs JSON data');
    const content = { stream, revision: link.after + 1n + BigInt(i), type: event.type, data, metadata: JSON.stringify(metadata) };
    previous = eventHash(content, previous);
    return { ...event, metadata: { ...metadata, [HASH_KEY]: previous } };
  });
}
