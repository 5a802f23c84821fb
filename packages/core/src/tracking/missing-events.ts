import type { Selectable } from 'kysely';
import type { TrackingEventSweepsTable } from '../db/tables/emails';
import { uuidV7Floor } from '../db/ids';
import { preparedStatement, type PreparedStatementPool } from '../db/prepared-statements';
import { clickEvent, openEvent, type ClickEventSource, type OpenEventSource, type TrackingEvent } from './tracking-events';

// the database's clock, not an api's: one api whose clock runs ahead must not move the mark past
// hits the others have not stored yet
const READ_MARK = preparedStatement<Pick<Selectable<TrackingEventSweepsTable>, 'sweptUntil'> & { databaseNow: Date }>(
  'waymark_tracking_sweep_mark',
  `select swept_until as "sweptUntil", now() as "databaseNow" from tracking_event_sweeps where id = 1`,
);

// greatest: two apis sweeping at once never move the mark back
const MOVE_MARK = preparedStatement<Record<string, never>>(
  'waymark_tracking_sweep_move',
  `update tracking_event_sweeps set swept_until = greatest(swept_until, $1::timestamptz) where id = 1`,
);

// Whose event the sweep may store: a person who still has a contact, on a send not erased. Storing an
// event upserts its contact, so a hit of a person erased (or deleted) since would bring the contact
// back; their send records stay by design (emails/erase-sends.ts), and a hit's lost event goes with
// the person. An erased send's hits never have events (tracking-recorder.ts), not even once someone
// signs up again with the same address.
const PERSON_KEPT = `s.erased_at is null and (exists (select 1 from contacts k where k.external_id = s.user_id)
     or exists (select 1 from contacts k where k.external_id is null and lower(k.email) = lower(coalesce(s.user_id, s.to_email))))`;

// A click still pending its verdict is left to the pending sweep (tracking-recorder.ts), which
// publishes its event once settled.
const CLICKS_WITHOUT_EVENTS = preparedStatement<ClickEventSource>(
  'waymark_clicks_without_events',
  `select c.id as "clickId", t.id as "linkId", t.original_url as "originalUrl", t.email_send_id as "emailSendId",
     s.template_key as "templateKey", s.user_id as "userId", s.to_email as "toEmail", c.clicked_at as "clickedAt",
     c.machine_reason as "machineReason"
   from link_clicks c join tracked_links t on t.id = c.tracked_link_id join email_sends s on s.id = t.email_send_id
   where c.id >= $1::uuid and c.id < $2::uuid and not c.pending
     and not exists (select 1 from events e where e.idempotency_key = 'email.link_clicked:' || c.id::text)
     and ${PERSON_KEPT}
   order by c.id`,
);

// The first open of each kind in the range stands for its kind: an earlier one has its event
// already (or an earlier sweep stored it), which the anti-join finds.
const OPENS_WITHOUT_EVENTS = preparedStatement<OpenEventSource & { openedAt: Date }>(
  'waymark_opens_without_events',
  `select o.email_send_id as "emailSendId", s.template_key as "templateKey", s.user_id as "userId", s.to_email as "toEmail",
     o.machine_reason as "machineReason", o.opened_at as "openedAt"
   from (
     select distinct on (email_send_id, machine) id, email_send_id, machine, machine_reason, opened_at
     from email_opens where id >= $1::uuid and id < $2::uuid
     order by email_send_id, machine, id
   ) o join email_sends s on s.id = o.email_send_id
   where not exists (
     select 1 from events e
     where e.idempotency_key = 'email.opened:' || o.email_send_id::text || case when o.machine then ':machine' else '' end
   ) and ${PERSON_KEPT}`,
);

/** One look at most covers this much time, so a long outage is caught up a slice per look. */
const MAX_SLICE_MS = 5 * 60_000;

/**
 * Stores the events of the hits recorded since the mark whose event is missing, then moves the
 * mark on (docs/email.md, "Tracking"). Only hits older than `graceMs` by `now` (default: the
 * database's clock) are read: a younger one may still be in a live api's queue. An event stored twice is refused by its idempotency key, so two
 * apis looking at once, or a queue slower than the grace, costs a lookup and nothing more.
 * Resolves how many events it stored.
 */
export async function storeMissingTrackingEvents(
  statements: PreparedStatementPool,
  store: (events: TrackingEvent[]) => Promise<void>,
  options: { graceMs: number; now?: Date | undefined },
): Promise<number> {
  const [mark] = await statements.run(READ_MARK, []);
  if (mark === undefined) return 0;
  const since = mark.sweptUntil.getTime();
  const until = Math.min((options.now ?? mark.databaseNow).getTime() - options.graceMs, since + MAX_SLICE_MS);
  if (until <= since) return 0;
  // click and open ids are UUIDv7 drawn by the api that took the hit (newRowId): a time range of hits is a range of ids
  const range = [uuidV7Floor(since), uuidV7Floor(until)];
  // one after the other: the pool is the click path's, and two reads at once would hold both its
  // connections while click batches wait
  const clicks = await statements.run(CLICKS_WITHOUT_EVENTS, range);
  const opens = await statements.run(OPENS_WITHOUT_EVENTS, range);
  const events = [...clicks.map(clickEvent), ...opens.map((open) => openEvent(open, open.openedAt))];
  await store(events);
  await statements.run(MOVE_MARK, [new Date(until)]);
  return events.length;
}
