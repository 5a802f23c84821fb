import { sql } from 'kysely';
import type { Db } from '../db/database';

/**
 * What SES's event stream says about the time since a claim (docs/email.md, "Exactly once"):
 *
 * - `flowed`: an event of a message SES accepted after the claim was received by `receivedBy`, so
 *   events have been coming through past the claim since then;
 * - `quiet`: SES has accepted no send since the claim (the ledger), so there is nothing whose
 *   events could have come;
 * - `late`: sends were accepted since the claim, but no event of any of them arrived by then: the
 *   webhook is down, refusing, or behind, and a Send event of the claimed message may still come.
 *   `firstEventAt`: when the event of the first message SES accepted past the claim arrived, if it
 *   has (after `receivedBy`): by then + the window the stream has surely been past the claim that
 *   long (an event of a message accepted later may have arrived sooner, which only makes it sooner).
 *
 * Only events carrying the send id tag count (`accepted_at`, migration 0296): those come from
 * Waymark's own configuration set, whose events are the ones that settle a send.
 */
export type EventStreamSince = { state: 'flowed' | 'quiet' } | { state: 'late'; firstEventAt: Date | undefined };

export async function eventStreamSince(db: Db, claimedAt: Date, receivedBy: Date): Promise<EventStreamSince> {
  // each answered from the claim onwards by an index (accepted_at, received_at; email_sends' sent_at)
  const { rows } = await sql<{ flowed: boolean; acceptedSince: boolean; firstEventAt: Date | null }>`
    select
      exists (select 1 from email_provider_notifications where accepted_at > ${claimedAt} and received_at <= ${receivedBy}) as flowed,
      exists (select 1 from email_sends where sent_at > ${claimedAt}) as "acceptedSince",
      (select received_at from email_provider_notifications where accepted_at > ${claimedAt} order by accepted_at limit 1) as "firstEventAt"`.execute(db);
  const { flowed, acceptedSince, firstEventAt } = rows[0]!;
  if (flowed) return { state: 'flowed' };
  return acceptedSince ? { state: 'late', firstEventAt: firstEventAt ?? undefined } : { state: 'quiet' };
}
