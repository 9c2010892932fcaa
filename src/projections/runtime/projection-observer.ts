/** Where a projector reports what metrics count; the process wires it to its Prometheus registry. */
export interface ProjectionObserver {
  /** A projection step failed (`read`: reading the log; `apply`: storing into the read models). */
  stepFailed(stage: 'read' | 'apply'): void;
  /** Events given up on and parked. */
  eventsParked(count: number): void;
}

export const ignoreProjection: ProjectionObserver = {
  stepFailed: () => {},
  eventsParked: () => {},
};
