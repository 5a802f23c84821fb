import { sql } from 'kysely';
import type { Db } from '../db/database';

export interface RecordedClick {
  originalUrl: string;
  linkId: string;
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
}

/**
 * SPEC §4 click handling steps 1–3 in one statement (one round trip on the hot path):
 * (1) insert the click with IP, user agent and time, (2) increment the link's click count,
 * (3) set the send's clickedAt only when empty (status moves to clicked from sent/delivered/opened).
 * Returns undefined for an unknown link id.
 */
export async function recordClick(db: Db, input: { linkId: string; ipAddress: string | null; userAgent: string | null }): Promise<RecordedClick | undefined> {
  const result = await sql<RecordedClick>`
    with link as (
      select id, email_send_id, original_url from tracked_links where id = ${input.linkId}
    ), click as (
      insert into link_clicks (tracked_link_id, ip_address, user_agent)
      select id, ${input.ipAddress}, ${input.userAgent} from link
    ), counted as (
      update tracked_links t set click_count = t.click_count + 1, updated_at = now()
      from link where t.id = link.id
    ), first_click as (
      update email_sends s set clicked_at = now(), updated_at = now(),
        status = case when s.status in ('sent', 'delivered', 'opened') then 'clicked' else s.status end
      from link where s.id = link.email_send_id and s.clicked_at is null
    )
    select link.original_url as "originalUrl", link.id as "linkId", s.id as "emailSendId",
      s.template_key as "templateKey", s.user_id as "userId", s.to_email as "toEmail"
    from link join email_sends s on s.id = link.email_send_id
  `.execute(db);
  return result.rows[0];
}

export interface RecordedOpen {
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
}

/** First open only: sets openedAt when empty; later opens write nothing (undefined). */
export async function recordFirstOpen(db: Db, emailSendId: string): Promise<RecordedOpen | undefined> {
  return db
    .updateTable('emailSends')
    .set({
      openedAt: new Date(),
      updatedAt: new Date(),
      status: sql`case when status in ('sent', 'delivered') then 'opened' else status end`,
    })
    .where('id', '=', emailSendId)
    .where('openedAt', 'is', null)
    .returning(['id as emailSendId', 'templateKey', 'userId', 'toEmail'])
    .executeTakeFirst();
}
