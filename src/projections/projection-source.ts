import type { EventStore } from '../events/event-store.ts';
import type { ProjectionSource } from '../metrics/metrics.ts';
import { FILTERS_PROJECTION } from './filter-projector.ts';
import type { LeasedProjector } from './leased-projector.ts';
import type { ReadStore } from './read-store.ts';

/** What the projection gauges show, read from the shared checkpoint so every process reports the same. */
export function projectionSource(events: EventStore, reads: ReadStore, projector: LeasedProjector | null): ProjectionSource {
  return {
    checkpoint: () => reads.checkpoint(FILTERS_PROJECTION),
    async oldestPending() {
      const [next] = await events.readAll({ after: await reads.checkpoint(FILTERS_PROJECTION), limit: 1 });
      return next ? new Date(next.recordedAt) : null;
    },
    isLeader: () => projector?.isLeader ?? false,
  };
}
