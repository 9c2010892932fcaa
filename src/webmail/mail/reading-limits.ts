/**
 * What reading one message may cost, whoever built it. Past these the reader shows less (with a note
 * and the original to download), never more work or memory: docs/webmail.md lists them.
 */
export const READING_LIMITS = {
  /** The most of a message's source fetched to be shown; the download streams the whole. */
  sourceBytes: 25 * 1024 * 1024,
  /** HTML beyond this is not turned into text: the conversion's cost grows with it. */
  htmlChars: 1_000_000,
  /** The most text shown on the page. */
  shownChars: 500_000,
  /** Attachments listed by name; the rest are counted. */
  listedAttachments: 100,
  /** Header bytes of one MIME part, and MIME parts in all, the parser accepts before it gives up. */
  headerBytes: 2 * 1024 * 1024,
  mimeParts: 10_000,
  /** A parser process's heap (V8 old generation); past it the parser ends and the message is unreadable. */
  parserHeapMb: 192,
  /** A parse that runs longer ends, and the message is unreadable. */
  parseMs: 20_000,
  /** Parser processes at once (each with the heap above). */
  parsers: 2,
  /** Sources being fetched or parsed at once, in bytes (a message counts at least 64 KiB): bounds the memory. */
  bytesInFlight: 32 * 1024 * 1024,
} as const;

/** `text` cut to what the reader shows, and whether it was cut. */
export function shownText(text: string): { readonly text: string; readonly cut: boolean } {
  return text.length > READING_LIMITS.shownChars ? { text: text.slice(0, READING_LIMITS.shownChars), cut: true } : { text, cut: false };
}
