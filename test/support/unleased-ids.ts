import { allowUnleasedIds } from '../../src/shared/ids.ts';

// Tests make ids for fixtures without a store to lease a worker number from; services they start lease one.
allowUnleasedIds();

/**
 * Under mocha's loader a module reached by a dynamic import() (the adapters the stores.ts factories load
 * on demand) is a second instance beside the statically imported one: allow unleased ids there too,
 * before any test runs (a root hook of this --require file).
 */
export const mochaHooks = {
  async beforeAll(): Promise<void> {
    (await import('../../src/shared/ids.ts')).allowUnleasedIds();
  },
};
