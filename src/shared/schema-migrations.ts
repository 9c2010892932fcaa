/**
 * One numbered step of a store's schema history. Version 1 is the first schema; a store that has no
 * version yet (written before versions were recorded) is at version 0 and gets every step.
 */
export interface MigrationStep<Target, Done = void> {
  readonly version: number;
  /** Says what the step changes, for the log line and for whoever reads the history. */
  readonly description: string;
  readonly up: (target: Target) => Done;
}

/** Everything a store of one kind (a SQLite file, a MongoDB database) has been, in order. */
export interface SchemaHistory<Target, Done = void> {
  /** The store's name in messages, e.g. `events` or `read-models`. */
  readonly name: string;
  readonly steps: readonly MigrationStep<Target, Done>[];
}

/** Opening a store that a newer build has already upgraded: this build would misread it. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly store: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `${store} has schema version ${found}, but this build knows versions up to ${known}: ` +
        'run a build at least as new as the one that wrote it (or restore a backup from before the upgrade)',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The version a history ends at. */
export function latestVersion(history: { readonly steps: readonly { readonly version: number }[] }): number {
  return history.steps.at(-1)?.version ?? 0;
}

/**
 * The steps a store at `found` still needs, in order. Refuses a store newer than the history, and a
 * history whose versions are not 1, 2, 3, ...: a gap or a repeat would skip or replay a step.
 */
export function pendingSteps<Target, Done>(history: SchemaHistory<Target, Done>, found: number, where = history.name): MigrationStep<Target, Done>[] {
  history.steps.forEach((step, index) => {
    if (step.version !== index + 1) {
      throw new Error(`schema history ${history.name}: step ${index + 1} is numbered ${step.version}`);
    }
  });
  const known = latestVersion(history);
  if (!Number.isInteger(found) || found < 0) throw new Error(`${where} has an unreadable schema version: ${String(found)}`);
  if (found > known) throw new SchemaTooNewError(where, found, known);
  return history.steps.slice(found);
}
