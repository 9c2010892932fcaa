import type pg from 'pg';
import { mastodonQuery } from './mastodon-query.ts';

/**
 * Statuses a filter may name, in Mastodon mode: those of Mastodon's `statuses` table. Mastodon's
 * CustomFilterStatus `belongs_to :status` (app/models/custom_filter_status.rb), and its table's
 * foreign key to `statuses` (db/schema.rb) would refuse the row, so the API refuses first.
 */
export class MastodonStatuses {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async exists(statusId: string): Promise<boolean> {
    if (!/^\d{1,19}$/.test(statusId) || BigInt(statusId) > 9_223_372_036_854_775_807n) return false;
    return (await mastodonQuery(this.pool, 'SELECT 1 FROM statuses WHERE id = $1::bigint', [statusId])).length > 0;
  }
}
