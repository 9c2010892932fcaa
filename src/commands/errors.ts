/** Domain errors; the HTTP layer maps each to Mastodon's status code and `{"error": ...}` body. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';

  constructor(readonly messages: readonly string[]) {
    super(`Validation failed: ${messages.join(', ')}`);
  }
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';

  constructor() {
    super('Record not found');
  }
}

/** A request that is well-formed but breaks a rule of the domain; its message is shown as it is. */
export class RuleViolation extends Error {
  override readonly name = 'RuleViolation';
}

/** Optimistic-concurrency retries ran out: someone kept changing the same filter. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}
