/** The tables (SQLite) or collections (MongoDB) that make up one generation of the read models. */
export const READ_MODEL_NAMES = ['filters', 'v1_filters', 'filter_statuses', 'checkpoints', 'parked_events'] as const;
export type ReadModelName = (typeof READ_MODEL_NAMES)[number];

/** Generation 0 keeps the original names, so data from before generations existed still works. */
export const generationName = (base: ReadModelName, generation: number): string => (generation === 0 ? base : `${base}_g${generation}`);

/** All of one generation's names, in the order of READ_MODEL_NAMES. */
export const generationNames = (generation: number) => {
  const [filters, v1, statuses, checkpoints, parked] = READ_MODEL_NAMES.map((base) => generationName(base, generation)) as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { filters, v1, statuses, checkpoints, parked };
};

/** The generation whose checkpoints table or collection is called `name`, or null for any other name. */
export function generationOfCheckpoints(name: string): number | null {
  if (name === 'checkpoints') return 0;
  const match = /^checkpoints_g(\d+)$/.exec(name);
  return match ? Number(match[1]) : null;
}
