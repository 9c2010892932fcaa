import { dovecotMissing, OwnDovecot } from '../support/dovecot.ts';
import { mailboxContract } from './mailbox.contract.ts';
import { imapFixture, localFixture, type MailboxFixture } from './mailbox-fixtures.ts';

describe('Mailbox adapters (the local SQLite store, and IMAP on a Dovecot of the tests’ own)', function () {
  let local: MailboxFixture;
  let imap: MailboxFixture | null = null;
  let dovecot: OwnDovecot | null = null;

  before(async function () {
    this.timeout(60_000);
    local = await localFixture();
    const missing = dovecotMissing();
    if (missing) {
      console.log(`      IMAP adapter skipped: ${missing}`);
      return;
    }
    dovecot = await OwnDovecot.start();
    imap = await imapFixture(dovecot);
  });

  after(async () => {
    await local?.close();
    await imap?.close();
    await dovecot?.close();
  });

  mailboxContract('local SQLite store', () => local);
  mailboxContract('IMAP (Dovecot)', () => imap);
});
