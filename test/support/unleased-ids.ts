import { allowUnleasedIds } from '../../src/shared/ids.ts';

// Tests make ids for fixtures without a store to lease a worker number from; services they start lease one.
allowUnleasedIds();
