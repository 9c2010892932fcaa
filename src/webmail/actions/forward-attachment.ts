import type { ForwardedOriginal, Mailbox } from '../mail/mailbox.ts';
import type { ComposeDefaults } from '../sessions/compose-store.ts';

/**
 * The largest original forwarded as an attachment: it is held in memory while the message is built, and
 * the local store on MongoDB keeps it inside each copy's document (at most 16 MB, BSON's limit).
 */
export const FORWARD_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;

/** Why a forward as attachment cannot be sent (for the person composing), or the original to attach. */
export async function forwardedOriginal(
  mailbox: Mailbox,
  attachment: NonNullable<ComposeDefaults['forwardAttachment']>,
): Promise<ForwardedOriginal | { readonly refused: string }> {
  const source = await mailbox.source(attachment.folder, attachment.uid);
  if (!source) return { refused: 'The forwarded message no longer exists.' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source.content as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORWARD_ATTACHMENT_MAX_BYTES) {
      source.content.destroy();
      return { refused: `The forwarded message is larger than ${FORWARD_ATTACHMENT_MAX_BYTES / 1024 / 1024} MB: forward it inline or download it instead.` };
    }
    chunks.push(chunk);
  }
  return { filename: attachment.filename, raw: Buffer.concat(chunks) };
}
