import type { RecordedEvent } from '../events/event-store.ts';
import { filterIdOfStream, isFilterEvent } from '../events/filter-events.ts';
import type { Logger } from '../shared/logger.ts';
import { projectFilter, type FilterView } from './filter-view.ts';
import type { ReadStore } from './read-store.ts';

/**
 * One projection step: folds the event into its filter's view and stores view and checkpoint together,
 * or only moves the checkpoint past an event the read models do not use. Returns the stored view, or
 * null when the event changed no filter. Safe to repeat: the store ignores views that are not newer.
 */
export async function projectRecorded(reads: ReadStore, projection: string, recorded: RecordedEvent, logger: Logger): Promise<FilterView | null> {
  const checkpoint = { projection, position: recorded.position };
  const filterId = filterIdOfStream(recorded.streamName);
  const event = { type: recorded.type, data: recorded.data };
  if (filterId === null || !isFilterEvent(event)) {
    await reads.advanceCheckpoint(checkpoint);
    return null;
  }
  const view = projectFilter(await reads.loadFilter(filterId), event, Number(recorded.revision));
  if (!view) {
    logger.warn({ stream: recorded.streamName, type: recorded.type }, 'event for a filter the read model does not know; skipped');
    await reads.advanceCheckpoint(checkpoint);
    return null;
  }
  await reads.saveFilter(view, checkpoint);
  return view;
}
