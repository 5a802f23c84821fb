import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { personSends } from '../emails/erase-sends';

/**
 * For an erasure: the clicks and opens of the person's emails keep when they happened and whether a
 * machine made them (the sends' counts and the machine verdicts stay right) and lose the client
 * address and user agent they were stored with. The person's emails: `personSends`.
 */
export async function forgetHitsOf(db: Db, userIds: RawBuilder<string[]>): Promise<void> {
  await sql`
    with sends as (
      select id from email_sends where ${personSends(userIds)}
    ), clicks as (
      update link_clicks set ip_address = null, user_agent = null
      where tracked_link_id in (select l.id from tracked_links l join sends s on s.id = l.email_send_id)
        and (ip_address is not null or user_agent is not null)
    )
    update email_opens set ip_address = null, user_agent = null
    where email_send_id in (select id from sends) and (ip_address is not null or user_agent is not null)`.execute(db);
}
