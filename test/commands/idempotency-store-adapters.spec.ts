import { idempotencyStoreContract } from '../contracts/idempotency-store.contract.ts';
import { eachStoreLocation } from '../support/store-locations.ts';

describe('Idempotency-Key store adapters (SQLite, the MongoDB stand-in, and a MongoDB server when MONGODB_URL is set)', function () {
  this.timeout(30_000);
  eachStoreLocation(idempotencyStoreContract);
});
