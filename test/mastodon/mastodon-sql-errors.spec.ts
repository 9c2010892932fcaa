import assert from 'node:assert/strict';
import { isUnavailable } from '../../src/projections/mastodon/mastodon-sql.ts';

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
});
