import assert from 'node:assert/strict';
import type { MessageParser, MessageSource } from '../../src/webmail/mail/message-parser.ts';
import { dovecotMissing, OwnDovecot } from '../support/dovecot.ts';
import { hugeHtml } from '../support/hostile-mails.ts';
import { deliverOverLmtp, imapFixture, type MailboxFixture } from './mailbox-fixtures.ts';

const MB = 2 ** 20;

// Reading a message hands its source to the parser as the IMAP server sends it, in chunks: fetched as one
// literal, a 24 MB source was joined in one piece on the event loop and held whole until parsed.
describe('IMAP reading: a source goes to the parser in pieces, never whole', function () {
  this.timeout(60_000);
  let dovecot: OwnDovecot;
  let imap: MailboxFixture;

  before(async function () {
    const missing = dovecotMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    dovecot = await OwnDovecot.start();
    imap = await imapFixture(dovecot);
  });
  after(async () => {
    await imap?.provider.close();
    await dovecot?.close();
  });

  it('passes a 6 MB message on in pieces of at most 1 MB, all of them, and shows it', async () => {
    const user = await imap.user('pieces');
    const mail = hugeHtml(user.address, 6 * MB);
    await deliverOverLmtp(dovecot, user.address, mail.raw);
    // The provider's parser, watched: what each parse is given, piece by piece.
    const parser = (imap.provider as unknown as { parser: MessageParser }).parser;
    const pieces: number[] = [];
    const parse = parser.parse.bind(parser);
    parser.parse = (size, fetch) =>
      parse(size, async () => {
        const source = await fetch();
        if (source instanceof Uint8Array) {
          pieces.push(source.length);
          return source;
        }
        return (async function* (): AsyncIterable<Uint8Array> {
          for await (const piece of source as AsyncIterable<Uint8Array>) {
            pieces.push(piece.length);
            yield piece;
          }
        })() satisfies MessageSource;
      });
    const identity = await imap.provider.authenticate(user.login, user.password);
    assert.ok(identity);
    const mailbox = await imap.provider.open(identity);
    try {
      const message = await mailbox.read('INBOX', 1, false);
      assert.equal(message?.subject, 'huge html');
      assert.ok(pieces.length >= 6, `${pieces.length} pieces`);
      assert.ok(Math.max(...pieces) <= MB, `the largest piece held ${Math.max(...pieces)} bytes`);
      // All of it: the delivered message, with the few header lines the server put on top.
      const total = pieces.reduce((sum, n) => sum + n, 0);
      assert.ok(total >= mail.raw.length && total < mail.raw.length + 4096, `${total} bytes of ${mail.raw.length}`);
    } finally {
      await mailbox.close?.();
    }
  });
});
