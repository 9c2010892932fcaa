/** What a contract suite is given for one adapter: how to open a store on fresh data. */
export interface ContractFixture<Store> {
  /** A store on fresh data. */
  open(): Promise<Store>;
  /** Another connection to the data `store` is on (another process, in production). */
  openSibling?(store: Store): Promise<Store>;
}

export interface ContractSubject<Store, Fixture = ContractFixture<Store>> {
  /** A store on fresh data, opened before each test and closed after it. */
  readonly store: Store;
  readonly setup: Fixture;
  /** Another connection to this test's data, closed after the test. */
  openSibling(): Promise<Store>;
  /** A store on fresh data of its own, closed after the test. */
  openFresh(): Promise<Store>;
  /** Closes every store this test opened, then connects `store` to its data again: what a restart sees. */
  restart(): Promise<void>;
}

/**
 * Registers a contract suite's hooks: the whole suite is skipped when the adapter has no fixture here
 * (its fixture prints why, e.g. no server URL), and each test gets its own freshly opened store. Every
 * store a test opens through the subject is closed after it, so no connection outlives its test.
 */
export function contractSubject<Store extends { close(): Promise<void> }, Fixture extends ContractFixture<Store> = ContractFixture<Store>>(
  fixture: () => Fixture | null,
): ContractSubject<Store, Fixture> {
  let setup: Fixture;
  let store: Store;
  const opened: Store[] = [];
  const keep = (made: Store) => {
    opened.push(made);
    return made;
  };
  const closeAll = async () => {
    await Promise.all(opened.splice(0).map((made) => made.close()));
  };
  const sibling = async () => {
    if (!setup.openSibling) throw new Error('this fixture opens no second connection to the same data');
    return keep(await setup.openSibling(store));
  };

  before(function () {
    const found = fixture();
    if (!found) this.skip();
    setup = found!;
  });
  beforeEach(async () => {
    store = keep(await setup.open());
  });
  afterEach(closeAll);

  return {
    get store() {
      return store;
    },
    get setup() {
      return setup;
    },
    openSibling: sibling,
    openFresh: async () => keep(await setup.open()),
    async restart() {
      await closeAll();
      store = await sibling();
    },
  };
}
