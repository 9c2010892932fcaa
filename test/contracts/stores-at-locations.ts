import type { LocationFixture, StoreLocation } from '../support/store-locations.ts';
import type { ContractFixture } from './contract-subject.ts';

/**
 * A contract fixture for an adapter opened on a store location (test/support/store-locations.ts): each
 * store on a fresh location, a sibling on the location of the store it is asked for. No places here
 * (the place printed why) means no fixture, so the suite is skipped.
 */
export function storesAtLocations<Store extends object>(
  fixture: () => LocationFixture | null,
  openAt: (location: StoreLocation) => Promise<Store>,
): () => Required<ContractFixture<Store>> | null {
  return () => {
    const places = fixture();
    if (!places) return null;
    const where = new WeakMap<Store, StoreLocation>();
    const at = async (location: StoreLocation) => {
      const store = await openAt(location);
      where.set(store, location);
      return store;
    };
    return {
      open: () => at(places.fresh()),
      openSibling: (store) => at(where.get(store) ?? fail()),
    };
  };
}

function fail(): never {
  throw new Error('a sibling of a store this fixture did not open');
}
