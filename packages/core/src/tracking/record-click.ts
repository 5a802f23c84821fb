import { newRowId } from '../db/ids';
import { preparedStatement, type PreparedStatementPool } from '../db/prepared-statements';

export interface ClickInput {
  linkId: string;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface RecordedClick {
  clickId: string;
  originalUrl: string;
  linkId: string;
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
}

// Both statements are planned once per connection (prepared, generic plan): their plans do not
// depend on the values, and re-planning the click statement used to cost as much as running it.
const RECORD_CLICKS = preparedStatement<RecordedClick & { ord: number }>(
  'waymark_record_clicks',
  `with input as (
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) with ordinality as t(link_id, ip, ua, click_id, ord)
   ), link as (
     select i.ord, i.ip, i.ua, i.click_id, t.id, t.email_send_id, t.original_url
     from input i join tracked_links t on t.id = i.link_id
   ), click as (
     insert into link_clicks (id, tracked_link_id, ip_address, user_agent) select click_id, id, ip, ua from link order by ord
   ), counted as (
     update tracked_links t set click_count = t.click_count + c.n, updated_at = now()
     from (select id, count(*)::int as n from link group by id) c where t.id = c.id
   ), first_click as (
     update email_sends s set clicked_at = now(), updated_at = now(),
       status = case when s.status in ('sent', 'delivered', 'opened') then 'clicked' else s.status end
     from (select distinct email_send_id from link) l where s.id = l.email_send_id and s.clicked_at is null
   )
   select link.ord::int as ord, link.click_id as "clickId", link.original_url as "originalUrl", link.id as "linkId", s.id as "emailSendId",
     s.template_key as "templateKey", s.user_id as "userId", s.to_email as "toEmail"
   from link join email_sends s on s.id = link.email_send_id`,
);

/**
 * Click handling steps 1–3 (docs/email.md, Tracking) for a batch of clicks in one statement:
 * (1) insert each click with IP, user agent and time, (2) add them to each link's click count,
 * (3) set the send's clickedAt only when empty (status moves to clicked from sent/delivered/opened).
 * Returns, per input, the click (undefined for an unknown link id). Ids must be UUIDs.
 */
export async function recordClicks(statements: PreparedStatementPool, clicks: readonly ClickInput[]): Promise<(RecordedClick | undefined)[]> {
  if (clicks.length === 0) return [];
  const rows = await statements.run(RECORD_CLICKS, [
    clicks.map((click) => click.linkId),
    clicks.map((click) => click.ipAddress),
    clicks.map((click) => click.userAgent),
    clicks.map(() => newRowId()),
  ]);
  const byOrd = new Map(rows.map(({ ord, ...click }) => [Number(ord), click]));
  return clicks.map((_click, index) => byOrd.get(index + 1));
}

export interface RecordedOpen {
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
}

const RECORD_FIRST_OPENS = preparedStatement<RecordedOpen>(
  'waymark_record_first_opens',
  `update email_sends set opened_at = now(), updated_at = now(),
     status = case when status in ('sent', 'delivered') then 'opened' else status end
   where id = any($1::uuid[]) and opened_at is null
   returning id as "emailSendId", template_key as "templateKey", user_id as "userId", to_email as "toEmail"`,
);

/**
 * First opens for a batch of send ids: sets openedAt only when empty. Returns, per input, the
 * send when THIS call opened it first (undefined for repeat opens and unknown ids).
 */
export async function recordFirstOpens(statements: PreparedStatementPool, emailSendIds: readonly string[]): Promise<(RecordedOpen | undefined)[]> {
  if (emailSendIds.length === 0) return [];
  const rows = await statements.run(RECORD_FIRST_OPENS, [[...new Set(emailSendIds)]]);
  const byId = new Map(rows.map((row) => [row.emailSendId, row]));
  // the same id twice in one batch: only the first caller opened it
  return emailSendIds.map((id) => {
    const row = byId.get(id);
    byId.delete(id);
    return row;
  });
}
