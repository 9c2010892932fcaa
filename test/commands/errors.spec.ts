import assert from 'node:assert/strict';
import { ConflictError, NotFoundError, RuleViolation, ValidationError } from '../../src/commands/errors.ts';

describe('Domain errors', () => {
  // A log line, a parked event's record and a child process's report show an error as `name: message`.
  it('name themselves in what they print', () => {
    assert.deepEqual([new ValidationError(["Title can't be blank", 'x']), new NotFoundError(), new RuleViolation('r'), new ConflictError('c')].map(String), [
      "ValidationError: Validation failed: Title can't be blank, x",
      'NotFoundError: Record not found',
      'RuleViolation: r',
      'ConflictError: c',
    ]);
  });
});
