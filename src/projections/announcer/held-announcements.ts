import type { EventStore } from '../../events/event-store.ts';
import type { HeldAnnouncement, Notifier } from '../../notifications/notifier.ts';
import { announcementId } from './announcements-in.ts';

/**
 * What the transport holds beyond the announcer's checkpoint: `none` (nothing it keeps is past it),
 * `ours` (this log's commits up to `position` are there already: publishing them again would duplicate
 * them once JetStream's duplicate window has passed), or `foreign` (its last message is not a commit of
 * this log at that position: another deployment's, or a log started afresh; nothing is skipped then).
 */
export type Held =
  | { readonly kind: 'none' }
  | { readonly kind: 'ours'; readonly position: bigint; readonly ids: ReadonlySet<string> | null }
  | { readonly kind: 'foreign'; readonly held: HeldAnnouncement };

const PAGE = 256;
/**
 * The checkpoint trails the last confirmed publish by at most a page or two (it is stored per page), so
 * a held message further on than this is not one this announcer published.
 */
const LOOK_AHEAD = 16 * PAGE;

/**
 * The message ids the transport keeps past `from`; null when it can only say its last one. On a NATS
 * cluster a publish can fail (its leader lost, its proposal dropped) while the next one, already asked,
 * is stored: the last message then sits above a gap, and skipping up to it lost those commits.
 * (nats-server v2.9.10: server/jetstream_cluster.go processClusteredInboundMsg, line 6619 on, answers a
 * publish only once its proposal is applied; applyStreamEntries, lines 2341-2346, skips an entry behind
 * the stream's last sequence without an answer.)
 */
async function heldIds(notifier: Notifier, from: bigint | null): Promise<ReadonlySet<string> | null> {
  if (!notifier.heldAfter) return null;
  return new Set((await notifier.heldAfter(from, LOOK_AHEAD)).map((one) => one.messageId));
}

/** Asks the transport for its last announcement and looks for that commit in the log after `from`. */
export async function heldBeyond(events: EventStore, notifier: Notifier, from: bigint | null): Promise<Held> {
  const held = notifier.lastHeld ? await notifier.lastHeld() : null;
  if (!held || (from !== null && held.position <= from)) return { kind: 'none' };
  let after = from;
  for (let read = 0; read < LOOK_AHEAD;) {
    const page = await events.readAll({ after, limit: PAGE });
    for (const event of page) {
      if (event.position < held.position) continue;
      const same = event.position === held.position && announcementId(event) === held.messageId;
      if (!same) return { kind: 'foreign', held };
      return { kind: 'ours', position: held.position, ids: await heldIds(notifier, from) };
    }
    const last = page.at(-1);
    if (!last) break;
    after = last.position;
    read += page.length;
  }
  return { kind: 'foreign', held };
}
