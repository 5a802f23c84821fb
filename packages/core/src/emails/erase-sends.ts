import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';

/**
 * The one rule for which sends were a person's, as an erasure reaches them: those sent under one of
 * `userIds` (`ownUserIds`: the contact's external id, and its lower-cased address when it owns it)
 * or to that address. A `where` condition on `email_sends`.
 */
export function personSends(userIds: RawBuilder<string[]>): RawBuilder<boolean> {
  return sql<boolean>`(email_sends.user_id = any(${userIds}) or lower(email_sends.to_email) = any(${userIds}))`;
}

/** The answer to viewing an erased send: its record stays, what it was rendered from does not. */
export const ERASED_SEND = "This email's recipient was erased: its record stays as delivery history, the data it was rendered from is gone";

/**
 * What an erased send's tracked links point at instead of their URLs (built from the person's data:
 * an order page, a link with their address), `erased:<link id>`: one per link, as the table's key
 * wants. A click on one lands on API_PUBLIC_URL (tracking-recorder.ts), as an unknown link does.
 */
export const ERASED_LINK_PREFIX = 'erased:';

/** What a send an erasure has not yet let through ends as (`cancelled`, answered `skipped` with it). */
export const ERASED_BEFORE_SENDING = 'its recipient was erased before it was sent';

/**
 * For an erasure: the person's send records stay as delivery history (to whom, when, which
 * template, what became of it) and lose what was rendered from the person's data: the template
 * data (names, plans, whatever the journey or caller passed) becomes `{}` and the subject, which
 * may carry a name, becomes empty. `erased_at` says so: the studio's view of such a send answers
 * 404 (ERASED_SEND) and an unknown outcome is never sent again (unknown-delivery.ts).
 * A failure's text becomes `[erased]`, and their tracked links forget where they pointed
 * (ERASED_LINK_PREFIX). A send not yet claimed for its provider call is cancelled:
 * nothing more goes to the person; the frequency caps' claims naming the address go. Answers how
 * many sends it erased.
 */
export async function eraseSendsOf(db: Db, userIds: RawBuilder<string[]>): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    with erased as (
      update email_sends set
        data = '{}'::jsonb,
        subject = '',
        erased_at = now(),
        -- "not yet claimed" twice, in the row's own SET: a claim committed meanwhile is then seen
        -- (the row as updated is read again), which a snapshot taken in a CTE before would miss
        status = case when status in ('queued', 'rendered') and send_started_at is null and provider_message_id is null then 'cancelled' else status end,
        -- a failure's text quotes the address (a provider's refusal) or the data (a template's)
        error_message = case
          when status in ('queued', 'rendered') and send_started_at is null and provider_message_id is null then ${ERASED_BEFORE_SENDING}
          when error_message is null then null
          else '[erased]' end,
        updated_at = now()
      where ${personSends(userIds)} and erased_at is null
      returning id
    ), links as (
      update tracked_links set original_url = ${ERASED_LINK_PREFIX} || id::text, updated_at = now()
      where email_send_id in (select id from erased) and not honeypot
    ), claims as (
      -- a send in admission keeps the address it is counted under until its row exists
      delete from delivery_cap_claims where email = any(${userIds})
    )
    select count(*) from erased`.execute(db);
  return Number(rows[0]?.count ?? 0);
}
