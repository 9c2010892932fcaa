import assert from 'node:assert/strict';
import { AccountError } from '../../src/accounts/account-store.ts';
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../../src/accounts/passwords.ts';

describe('password hashes', () => {
  it('are salted scrypt hashes that verify only the same password', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    assert.match(first, /^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(first, second);
    assert.equal(await verifyPassword('correct horse', first), true);
    assert.equal(await verifyPassword('correct horse ', first), false);
    assert.equal(await verifyPassword('', first), false);
  });

  it('never verify against a malformed hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$0$8$1$aa$bb', 'sha1$x$y$z$a$b']) {
      assert.equal(await verifyPassword('x', stored), false);
    }
    assert.equal(await verifyAgainstNothing('x'), false);
  });

  it('refuse an empty or overlong password', async () => {
    await assert.rejects(hashPassword(''), AccountError);
    await assert.rejects(hashPassword('x'.repeat(1025)), AccountError);
  });
});
