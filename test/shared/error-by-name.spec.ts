import assert from 'node:assert/strict';
import { ConcurrencyError } from '../../src/events/event-store.ts';
import { isErrorNamed } from '../../src/shared/error-by-name.ts';

/** What a second instance of event-store.ts would hold: a class of the same name that is another class. */
class SecondInstanceConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
}

describe('isErrorNamed: an error class told by its name, as from another module instance', () => {
  it('takes an error of another class of the same name as the class', () => {
    assert.equal(new SecondInstanceConcurrencyError() instanceof ConcurrencyError, false);
    assert.equal(isErrorNamed(new SecondInstanceConcurrencyError(), ConcurrencyError), true);
    assert.equal(isErrorNamed(new ConcurrencyError('filter-1', 0n, 1n), ConcurrencyError), true);
  });

  it('refuses an error of another name, and what is not an Error', () => {
    assert.equal(isErrorNamed(new Error('ConcurrencyError'), ConcurrencyError), false);
    assert.equal(isErrorNamed({ name: 'ConcurrencyError' }, ConcurrencyError), false);
  });
});
