import { sql, type Kysely } from 'kysely';

/**
 * A send can end `cancelled`: a cancelled broadcast's sends held back by the send rate (rows left
 * `queued`, never claimed) end there instead of waiting forever (docs/email.md, "Send rate").
 * The status counts of 0140 count any status value, so they need no change: the cancel's update
 * moves each row from `queued` to `cancelled` through the status trigger. `unknown_dropped` is
 * 0156's (an unknown delivery the delivery policy dropped), kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_sends drop constraint if exists email_sends_status_check;
    alter table email_sends add constraint email_sends_status_check
      check (status in ('queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed', 'unknown_dropped', 'cancelled'));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    update email_sends set status = 'failed', error_message = coalesce(error_message, 'Cancelled') where status = 'cancelled';
    alter table email_sends drop constraint if exists email_sends_status_check;
    alter table email_sends add constraint email_sends_status_check
      check (status in ('queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed', 'unknown_dropped'));
  `.execute(db);
}
