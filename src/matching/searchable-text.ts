import { htmlToPlainText } from './plain-text.ts';

/** A status as a caller sends it for matching; for a boost, the text fields are the boosted status's. */
export interface MatchableStatus {
  readonly id: string;
  readonly reblog_of_id?: string | null;
  readonly spoiler_text?: string | null;
  /** HTML, as in Mastodon's Status entity. */
  readonly content?: string | null;
  /** Present only when the status has a poll. */
  readonly poll_options?: readonly string[] | null;
  readonly media_descriptions?: readonly (string | null)[] | null;
}

const SEPARATOR = '\n\n';

/**
 * Mastodon's `Status#searchable_text`, the text keywords are matched against: spoiler text, plain
 * text of the content, poll options and media descriptions, joined by blank lines. As in Mastodon the
 * spoiler text and the media descriptions are always there (possibly empty); the poll part only when
 * the status has a poll.
 */
export function searchableText(status: MatchableStatus): string {
  let text = (status.spoiler_text ?? '') + SEPARATOR + htmlToPlainText(status.content ?? '');
  if (status.poll_options) text += SEPARATOR + status.poll_options.join(SEPARATOR);
  const media = status.media_descriptions;
  text += SEPARATOR;
  if (media) for (let i = 0; i < media.length; i++) text += (i > 0 ? SEPARATOR : '') + (media[i] ?? '');
  return text;
}
