import { sql, type Kysely } from 'kysely';

/**
 * How far SES's event stream has come (docs/email.md, "Exactly once").
 *
 * `email_provider_notifications.accepted_at` is when SES accepted the message an event of
 * Waymark's configuration set is about (its `mail.timestamp`; only events carrying the send id
 * tag). A send whose attempt stopped during the provider call is sent again only once events of
 * messages SES accepted after its claim have been arriving for the whole settle window: a slow or
 * stopped webhook then holds the resend back instead of letting a late Send event find a second
 * email. The partial index answers "an event of a message accepted after this claim, received by
 * then" from the claim onwards.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_provider_notifications add column accepted_at timestamptz;
    create index email_provider_notifications_accepted_idx on email_provider_notifications (accepted_at, received_at) where accepted_at is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists email_provider_notifications_accepted_idx;
    alter table email_provider_notifications drop column if exists accepted_at;
  `.execute(db);
}
