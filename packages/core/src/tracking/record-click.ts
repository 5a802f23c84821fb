import type { MachineReason } from '../db/schema';
import { newRowId } from '../db/ids';
import { preparedStatement, type PreparedStatementPool } from '../db/prepared-statements';
import type { ClickEventSource, OpenEventSource } from './tracking-events';

export interface ClickInput {
  linkId: string;
  ipAddress: string | null;
  userAgent: string | null;
  /** what the request alone showed (HEAD, scanner user agent); null when it looks like a person */
  machineReason: MachineReason | null;
}

export interface RecordedClick extends ClickEventSource {
  /**
   * A click that looks like a person's, inside the machine-click window after the send: whether
   * it was a scanner's depends on clicks that may still be on their way, so it is settled
   * (`settleClick`) a second later. Until then it does not count as a person's.
   */
  pending: boolean;
  /**
   * Its send's recipient was erased (emails/erase-sends.ts): the hit is counted, but kept without
   * the address and user agent it came from, and no event is stored of it (storing one would
   * bring the contact back). Never pending.
   */
  erased: boolean;
}

// All statements are planned once per connection (prepared, generic plan): their plans do not
// depend on the values, and planning the click statement afresh costs as much as running it.
// A click is too_fast when it comes within the window ($6 ms) after the provider accepted the
// send and another link of the same email was clicked less than a second before (or in the
// same batch); honeypot when its link is the invisible one.
const RECORD_CLICKS = preparedStatement<Omit<RecordedClick, 'machineReason'> & { ord: number; machineReason: MachineReason | null }>(
  'waymark_record_clicks',
  `with input as (
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[]) with ordinality as t(link_id, ip, ua, click_id, reason, ord)
   ), link as (
     select i.ord, i.ip, i.ua, i.click_id, i.reason, t.id, t.email_send_id, t.original_url, t.honeypot,
       s.template_key, s.user_id, s.to_email, s.erased_at is not null as erased,
       s.sent_at is not null and s.sent_at > now() - make_interval(secs => $6::int / 1000.0) as in_window
     from input i join tracked_links t on t.id = i.link_id join email_sends s on s.id = t.email_send_id
   ), verdict as (
     select l.*, coalesce(case when l.honeypot then 'honeypot' end, l.reason,
       case when l.in_window and (
         exists (select 1 from link l2 where l2.email_send_id = l.email_send_id and l2.id <> l.id)
         or exists (select 1 from tracked_links t2 join link_clicks c on c.tracked_link_id = t2.id
                    where t2.email_send_id = l.email_send_id and t2.id <> l.id and c.clicked_at > now() - interval '1 second')
       ) then 'too_fast' end) as machine_reason
     from link l
   ), click as (
     insert into link_clicks (id, tracked_link_id, ip_address, user_agent, machine, machine_reason, pending)
     select click_id, id, case when erased then null else ip end, case when erased then null else ua end,
       machine_reason is not null, machine_reason, machine_reason is null and in_window and not erased from verdict order by ord
   ), counted as (
     update tracked_links t set click_count = t.click_count + c.n, updated_at = now()
     from (select id, count(*)::int as n from verdict group by id) c where t.id = c.id
   ), first_click as (
     update email_sends s set clicked_at = coalesce(s.clicked_at, now()),
       human_clicked_at = case when v.human then coalesce(s.human_clicked_at, now()) else s.human_clicked_at end,
       updated_at = now(),
       status = case when s.status in ('sent', 'delivered', 'opened') then 'clicked' else s.status end
     from (select email_send_id, bool_or(machine_reason is null and not in_window) as human from verdict group by email_send_id) v
     where s.id = v.email_send_id and (s.clicked_at is null or (v.human and s.human_clicked_at is null))
   )
   select ord::int as ord, click_id as "clickId", original_url as "originalUrl", id as "linkId", email_send_id as "emailSendId",
     template_key as "templateKey", user_id as "userId", to_email as "toEmail", now() as "clickedAt",
     machine_reason as "machineReason", machine_reason is null and in_window and not erased as pending, erased
   from verdict`,
);

/**
 * Click handling steps 1–3 (docs/email.md, Tracking) for a batch of clicks in one statement:
 * (1) insert each click with IP, user agent, time and its machine verdict, (2) add them to each
 * link's click count, (3) set the send's clickedAt only when empty (status moves to clicked from
 * sent/delivered/opened) and humanClickedAt only when empty and a person clicked.
 * Returns, per input, the click (undefined for an unknown link id). Ids must be UUIDs.
 */
export async function recordClicks(
  statements: PreparedStatementPool,
  clicks: readonly ClickInput[],
  options: { machineClickWindowMs: number },
): Promise<(RecordedClick | undefined)[]> {
  if (clicks.length === 0) return [];
  const rows = await statements.run(RECORD_CLICKS, [
    clicks.map((click) => click.linkId),
    clicks.map((click) => click.ipAddress),
    clicks.map((click) => click.userAgent),
    clicks.map(() => newRowId()),
    clicks.map((click) => click.machineReason),
    options.machineClickWindowMs,
  ]);
  const byOrd = new Map(rows.map(({ ord, ...click }) => [Number(ord), click]));
  return clicks.map((_click, index) => byOrd.get(index + 1));
}

// Settles once: the row's `pending` is cleared by the one statement that settles it (the timer of
// the api that took the click, or any api's sweep of clicks left pending), which alone answers.
// Settles a batch: under load every click of a fresh email is pending, and one statement per
// click a second later cost as many round trips as recording them.
const SETTLE_CLICKS = preparedStatement<{ id: string; fast: boolean }>(
  'waymark_settle_clicks',
  `with c as (
     select lc.id, lc.clicked_at, t.id as link_id, t.email_send_id
     from unnest($1::uuid[]) as i(id) join link_clicks lc on lc.id = i.id join tracked_links t on t.id = lc.tracked_link_id
     where lc.pending
   ), v as (
     select c.*, exists (
       select 1 from tracked_links t2 join link_clicks o on o.tracked_link_id = t2.id
       where t2.email_send_id = c.email_send_id and t2.id <> c.link_id
         and o.clicked_at > c.clicked_at - interval '1 second' and o.clicked_at < c.clicked_at + interval '1 second'
     ) as fast from c
   ), mark as (
     update link_clicks set pending = false, machine = v.fast, machine_reason = case when v.fast then 'too_fast' end
     from v where link_clicks.id = v.id and link_clicks.pending
     returning link_clicks.id
   ), person as (
     update email_sends s set human_clicked_at = p.clicked_at, updated_at = now()
     from (select v.email_send_id, min(v.clicked_at) as clicked_at from v join mark m on m.id = v.id where not v.fast group by v.email_send_id) p
     where s.id = p.email_send_id and s.human_clicked_at is null
   )
   select v.id, v.fast from v join mark m on m.id = v.id`,
);

/**
 * The second look at pending clicks: too_fast when another link of the same email was clicked
 * within a second either side of it, else a person's (humanClickedAt when empty). Resolves, per
 * click id, the verdict (null = a person), or undefined when the click was not pending (already settled).
 */
export async function settleClicks(
  statements: PreparedStatementPool,
  clickIds: readonly string[],
): Promise<({ machineReason: MachineReason | null } | undefined)[]> {
  if (clickIds.length === 0) return [];
  const rows = await statements.run(SETTLE_CLICKS, [clickIds]);
  const fast = new Map(rows.map((row) => [row.id, row.fast]));
  return clickIds.map((id) => {
    const verdict = fast.get(id);
    return verdict === undefined ? undefined : { machineReason: verdict ? 'too_fast' : null };
  });
}

const LEFT_PENDING = preparedStatement<Omit<RecordedClick, 'machineReason' | 'pending' | 'erased'>>(
  'waymark_left_pending_clicks',
  `select lc.id as "clickId", t.original_url as "originalUrl", t.id as "linkId", t.email_send_id as "emailSendId",
     s.template_key as "templateKey", s.user_id as "userId", s.to_email as "toEmail", lc.clicked_at as "clickedAt"
   from link_clicks lc join tracked_links t on t.id = lc.tracked_link_id join email_sends s on s.id = t.email_send_id
   where lc.pending and lc.clicked_at < now() - make_interval(secs => $1::int / 1000.0)
   order by lc.clicked_at limit 500`,
);

/** Clicks still pending `olderThanMs` after they came: their api stopped before it settled them. */
export async function findClicksLeftPending(
  statements: PreparedStatementPool,
  olderThanMs: number,
): Promise<Omit<RecordedClick, 'machineReason' | 'pending' | 'erased'>[]> {
  return statements.run(LEFT_PENDING, [olderThanMs]);
}

const ENSURE_HONEYPOT = preparedStatement<{ id: string }>(
  'waymark_ensure_honeypot',
  `insert into tracked_links (id, email_send_id, original_url, honeypot)
   select id, id, '', true from email_sends where id = $1
   on conflict do nothing returning id`,
);

/**
 * The invisible link of a send points at `/v1/t/c/<email send id>` (packages/email link
 * rewriting); its tracked link is created on its first click. Resolves whether one was created.
 */
export async function ensureHoneypotLink(statements: PreparedStatementPool, emailSendId: string): Promise<boolean> {
  return (await statements.run(ENSURE_HONEYPOT, [emailSendId])).length > 0;
}

export interface OpenInput {
  emailSendId: string;
  ipAddress: string | null;
  userAgent: string | null;
  machineReason: MachineReason | null;
}

export interface RecordedOpen extends OpenEventSource {
  /** the first open of its kind (person / machine) of this send */
  first: boolean;
  /** its send's recipient was erased: counted, kept without address and user agent, no event (as RecordedClick) */
  erased: boolean;
}

// the snapshot every CTE reads is from before the statement: "first of its kind" compares with
// the opens recorded before this batch
const RECORD_OPENS = preparedStatement<RecordedOpen & { ord: number }>(
  'waymark_record_opens',
  `with input as (
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[]) with ordinality as t(send_id, ip, ua, reason, open_id, ord)
   ), known as (
     select i.*, s.template_key, s.user_id, s.to_email, s.erased_at is not null as erased,
       case when i.reason is null then s.human_opened_at is null
         else not exists (select 1 from email_opens o where o.email_send_id = s.id and o.machine) end as first
     from input i join email_sends s on s.id = i.send_id
   ), opened as (
     insert into email_opens (id, email_send_id, ip_address, user_agent, machine, machine_reason)
     select open_id, send_id, case when erased then null else ip end, case when erased then null else ua end, reason is not null, reason
     from known order by ord
   ), first_open as (
     update email_sends s set opened_at = coalesce(s.opened_at, now()),
       human_opened_at = case when k.human then coalesce(s.human_opened_at, now()) else s.human_opened_at end,
       updated_at = now(),
       status = case when s.status in ('sent', 'delivered') then 'opened' else s.status end
     from (select send_id, bool_or(reason is null) as human from known group by send_id) k
     where s.id = k.send_id and (s.opened_at is null or (k.human and s.human_opened_at is null))
   )
   select ord::int as ord, send_id as "emailSendId", template_key as "templateKey", user_id as "userId", to_email as "toEmail",
     reason as "machineReason", first, erased
   from known`,
);

/**
 * Opens for a batch of pixel fetches: each is recorded with its verdict; openedAt is set only when
 * empty, humanOpenedAt only when empty and a person opened. Returns, per input, the open
 * (undefined for unknown ids); `first` marks the first open of its kind of a send (once per
 * batch too).
 */
export async function recordOpens(statements: PreparedStatementPool, opens: readonly OpenInput[]): Promise<(RecordedOpen | undefined)[]> {
  if (opens.length === 0) return [];
  const rows = await statements.run(RECORD_OPENS, [
    opens.map((open) => open.emailSendId),
    opens.map((open) => open.ipAddress),
    opens.map((open) => open.userAgent),
    opens.map((open) => open.machineReason),
    opens.map(() => newRowId()),
  ]);
  const byOrd = new Map(rows.map(({ ord, ...open }) => [Number(ord), open]));
  const seen = new Set<string>();
  return opens.map((_open, index) => {
    const open = byOrd.get(index + 1);
    if (open === undefined) return undefined;
    // the same send twice in one batch: only the first of each kind is first
    const kind = `${open.emailSendId}:${open.machineReason === null ? 'person' : 'machine'}`;
    const first = open.first && !seen.has(kind);
    seen.add(kind);
    return { ...open, first };
  });
}
