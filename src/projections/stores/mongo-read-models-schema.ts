import type { MongoSchema } from '../../shared/mongo-migrations.ts';

export const POINTER_ID = 'read-models';

/**
 * The read models' MongoDB database, step by step. Add a step for every change; never edit one that has
 * shipped. Each generation's collections get their indexes from `mongo-read-collections.ts` when first
 * used; a step that changes them must change every generation the database holds.
 */
export const mongoReadModelsSchema: MongoSchema = {
  name: 'read-models',
  steps: [
    {
      version: 1,
      description: 'the generation pointer (current, pending, next)',
      // $setOnInsert: databases written before versions were recorded already have the pointer.
      up: async (db) => {
        await db
          .collection<{ _id: string }>('read_model_pointer')
          .updateOne({ _id: POINTER_ID }, { $setOnInsert: { current: 0, pending: null, next: 1 } }, { upsert: true });
      },
    },
  ],
};
