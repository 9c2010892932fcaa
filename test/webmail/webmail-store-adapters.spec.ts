import { composeAttachmentsContract } from '../contracts/compose-attachments.contract.ts';
import { composeStoreContract } from '../contracts/compose-store.contract.ts';
import { loginRateLimitContract } from '../contracts/login-rate-limit.contract.ts';
import { mailStoreContract } from '../contracts/mail-store.contract.ts';
import { mailStoreMoveContract } from '../contracts/mail-store-move.contract.ts';
import { mailStoreForwardedContract } from '../contracts/mail-store-forwarded.contract.ts';
import { mailStoreSearchContract } from '../contracts/mail-store-search.contract.ts';
import { sessionStoreContract } from '../contracts/session-store.contract.ts';
import { eachStoreLocation } from '../support/store-locations.ts';

describe('Webmail store adapters (SQLite, the MongoDB stand-in, and a MongoDB server when MONGODB_URL is set)', function () {
  this.timeout(30_000);
  eachStoreLocation((name, fixture) => {
    loginRateLimitContract(name, fixture);
    sessionStoreContract(name, fixture);
    composeStoreContract(name, fixture);
    composeAttachmentsContract(name, fixture);
    mailStoreContract(name, fixture);
    mailStoreSearchContract(name, fixture);
    mailStoreMoveContract(name, fixture);
    mailStoreForwardedContract(name, fixture);
  });
});
