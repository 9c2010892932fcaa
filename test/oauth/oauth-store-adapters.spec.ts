import { oauthStoreContract } from '../contracts/oauth-store.contract.ts';
import { eachStoreLocation } from '../support/store-locations.ts';

describe('OAuth store adapters (SQLite, the MongoDB stand-in, and a MongoDB server when MONGODB_URL is set)', function () {
  this.timeout(30_000);
  eachStoreLocation(oauthStoreContract);
});
