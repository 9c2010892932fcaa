/** The filters read models' name in the checkpoint table, and in their projector's lease. */
export const FILTERS_PROJECTION = 'filters';
