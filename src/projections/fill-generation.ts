import type { EventStore } from '../events/event-store.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { FILTERS_PROJECTION } from './filter-projector.ts';
import { projectRecorded } from './project-recorded.ts';
import type { ReadStore } from './read-store.ts';

const PAGE_SIZE = 512;

export interface FillProgress {
  /** Events applied by this fill so far. */
  readonly events: number;
  readonly position: bigint;
  readonly upTo: bigint;
}

/**
 * Projects the log into a generation that nobody queries yet, from its own checkpoint up to and including
 * `upTo`, announcing nothing. It never goes past `upTo` (the live checkpoint): events after it are the
 * live projector's to project and announce, so a swap neither loses nor repeats an announcement.
 */
export async function fillGeneration(
  events: EventStore,
  target: ReadStore,
  upTo: bigint | null,
  onProgress: (progress: FillProgress) => void = () => {},
  logger: Logger = silentLogger,
): Promise<number> {
  if (upTo === null) return 0;
  let position = await target.checkpoint(FILTERS_PROJECTION);
  let applied = 0;
  while (position === null || position < upTo) {
    const page = await events.readAll({ after: position, limit: PAGE_SIZE });
    const wanted = page.filter((e) => e.position <= upTo);
    for (const recorded of wanted) {
      await projectRecorded(target, FILTERS_PROJECTION, recorded, logger);
      position = recorded.position;
      applied += 1;
    }
    if (position !== null) onProgress({ events: applied, position, upTo });
    if (wanted.length < page.length || page.length < PAGE_SIZE) break;
  }
  return applied;
}
