import { nanos, StorageType, type JetStreamManager, type StreamConfig } from 'nats';
import type { Logger } from '../shared/logger.ts';

/** The subjects the stream captures: every account's timeline. */
export const TIMELINE_SUBJECTS = 'timeline.*';

export interface TimelineStreamSettings {
  readonly name: string;
  /** Messages older than this are dropped by the server (7 days by default). */
  readonly maxAgeMs: number;
  readonly storage: 'file' | 'memory';
  /** Copies of the stream on a NATS cluster (NATS_STREAM_REPLICAS): set on creation, and on a present stream. */
  readonly replicas: number;
  /**
   * JetStream's duplicate window (2 minutes, its own default). The announcer does not rely on it (it
   * looks at the stream before re-publishing); tests shorten it to show that.
   */
  readonly duplicateWindowMs?: number;
}

const DUPLICATE_WINDOW_MS = 2 * 60_000;

const NOT_FOUND = /stream not found/i;

/**
 * Creates the stream when absent. When present it is checked and left alone (an operator may have
 * tuned it): what differs from the settings is logged and returned, never changed; except its replicas,
 * which follow NATS_STREAM_REPLICAS, so an operator scales a stream up or down by that setting alone.
 */
export async function checkTimelineStream(jsm: JetStreamManager, settings: TimelineStreamSettings, logger: Logger): Promise<string | null> {
  const wanted: Partial<StreamConfig> & { name: string } = {
    name: settings.name,
    subjects: [TIMELINE_SUBJECTS],
    max_age: nanos(settings.maxAgeMs),
    storage: settings.storage === 'memory' ? StorageType.Memory : StorageType.File,
    duplicate_window: nanos(Math.min(settings.duplicateWindowMs ?? DUPLICATE_WINDOW_MS, settings.maxAgeMs)),
    num_replicas: settings.replicas,
  };
  let present;
  try {
    present = await jsm.streams.info(settings.name);
  } catch (error) {
    if (!NOT_FOUND.test((error as Error).message)) throw error;
    await jsm.streams.add(wanted);
    logger.info(
      { stream: settings.name, maxAgeMs: settings.maxAgeMs, storage: settings.storage, replicas: settings.replicas },
      'JetStream stream created for timeline announcements',
    );
    return null;
  }
  if (present.config.num_replicas !== settings.replicas) {
    // A refusal (more replicas than servers, a server without clustering) stops the announcements with
    // the server's reason in the log and /health, instead of announcing with fewer copies than asked.
    await jsm.streams.update(settings.name, { ...present.config, num_replicas: settings.replicas });
    logger.info(
      { stream: settings.name, from: present.config.num_replicas, replicas: settings.replicas },
      'JetStream stream replicas changed to NATS_STREAM_REPLICAS',
    );
  }
  const differences: string[] = [];
  if (!present.config.subjects?.includes(TIMELINE_SUBJECTS)) differences.push(`subjects ${JSON.stringify(present.config.subjects)}`);
  if (present.config.max_age !== wanted.max_age) differences.push(`max_age ${present.config.max_age} ns`);
  if (present.config.storage !== wanted.storage) differences.push(`storage ${present.config.storage}`);
  if (differences.length === 0) return null;
  const problem = `stream ${settings.name} differs from the settings (${differences.join(', ')}); left as it is`;
  logger.warn({ stream: settings.name, differences }, problem);
  return problem;
}
