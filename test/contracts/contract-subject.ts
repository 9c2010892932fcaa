/** What a contract suite is given for one adapter: how to open a store on fresh data. */
export interface ContractFixture<Store> {
  open(): Promise<Store>;
}

export interface ContractSubject<Store, Fixture> {
  /** A store on fresh data, opened before each test and closed after it. */
  readonly store: Store;
  readonly setup: Fixture;
}

/**
 * Registers a contract suite's hooks: the whole suite is skipped when the adapter has no fixture here
 * (its fixture prints why, e.g. no server URL), and each test gets its own freshly opened store.
 */
export function contractSubject<Store extends { close(): Promise<void> }, Fixture extends ContractFixture<Store>>(
  fixture: () => Fixture | null,
): ContractSubject<Store, Fixture> {
  const subject = {} as { store: Store; setup: Fixture };
  before(function () {
    const found = fixture();
    if (!found) this.skip();
    subject.setup = found!;
  });
  beforeEach(async () => {
    subject.store = await subject.setup.open();
  });
  afterEach(async () => {
    await subject.store?.close();
  });
  return subject;
}
