import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { FORWARD_ATTACHMENT_MAX_BYTES, forwardedOriginal } from '../../src/webmail/actions/forward-attachment.ts';
import type { Mailbox } from '../../src/webmail/mail/mailbox.ts';

/** A mailbox whose only message is `size` bytes, sent in 1 MiB pieces; counts the pieces read. */
function mailboxWith(size: number) {
  const read = { pieces: 0 };
  function* pieces() {
    for (let left = size; left > 0; left -= 1024 * 1024) {
      read.pieces += 1;
      yield Buffer.alloc(Math.min(left, 1024 * 1024), 'a');
    }
  }
  const mailbox = { source: async () => ({ subject: 's', content: Readable.from(pieces()) }) } as unknown as Mailbox;
  return { mailbox, read };
}

describe('forward as attachment, the size limit', () => {
  const attachment = { folder: 'INBOX', uid: 1, filename: 's.eml' };

  it('attaches an original of exactly the limit', async () => {
    const { mailbox } = mailboxWith(FORWARD_ATTACHMENT_MAX_BYTES);
    const original = await forwardedOriginal(mailbox, attachment);
    assert.ok('raw' in original);
    assert.equal(original.raw.length, FORWARD_ATTACHMENT_MAX_BYTES);
  });

  it('refuses a larger one, and stops reading it at the limit', async () => {
    const { mailbox, read } = mailboxWith(FORWARD_ATTACHMENT_MAX_BYTES * 3);
    const original = await forwardedOriginal(mailbox, attachment);
    // Not a deepEqual on the whole answer: the diff of a 30 MB buffer takes minutes to print.
    assert.ok('refused' in original, 'refused');
    assert.equal(original.refused, 'The forwarded message is larger than 10 MB: forward it inline or download it instead.');
    assert.equal(read.pieces, FORWARD_ATTACHMENT_MAX_BYTES / 1024 / 1024 + 1);
  });
});
