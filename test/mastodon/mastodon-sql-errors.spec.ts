import assert from 'node:assert/strict';
import { isPostgresUnavailable as isUnavailable, translatePostgresError } from '../../src/mastodon/postgres-errors.ts';
import { ReadStoreUnavailableError } from '../../src/projections/stores/read-store.ts';
import { isStoreUnavailable, sharedStoreUnavailable } from '../../src/shared/store-unavailable.ts';

const pgError = (code: string) => Object.assign(new Error(`pg says ${code}`), { code });

describe('Mastodon tables: which PostgreSQL errors are an outage (wait) and which refuse the data (retry, then park)', () => {
  it('connection, resource and operator classes, and driver errors without a SQLSTATE, are an outage', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '53300', '58030'])
      assert.equal(isUnavailable(Object.assign(new Error(code), { code })), true, code);
    assert.equal(isUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), true);
    assert.equal(isUnavailable(new Error('Connection terminated unexpectedly')), true);
  });

  it('a foreign key, a unique violation or a bad value refuses the data', () => {
    for (const code of ['23503', '23505', '22P02', '42P01']) assert.equal(isUnavailable(Object.assign(new Error(code), { code })), false, code);
  });

  it("one translator: an outage becomes the caller's store error with its words; with 'all' a refusal does too", () => {
    const projection = (message: string, cause: unknown) => new ReadStoreUnavailableError(message, { cause });
    const outage = pgError('57P01');
    const translated = translatePostgresError(outage, "Mastodon's database cannot be written", projection);
    assert.ok(translated instanceof ReadStoreUnavailableError);
    assert.equal(translated.message, "Mastodon's database cannot be written: pg says 57P01");
    assert.equal(translated.cause, outage);
    const refusal = pgError('23505');
    assert.equal(translatePostgresError(refusal, 'written', projection), refusal);
    const read = translatePostgresError(refusal, "Mastodon's database cannot be queried", sharedStoreUnavailable("Mastodon's database"), 'all');
    assert.equal(isStoreUnavailable(read, "Mastodon's database"), true);
    assert.equal((read as Error).message, "Mastodon's database cannot be queried: pg says 23505");
  });
});
