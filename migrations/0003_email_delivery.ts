import { sql, type Kysely } from 'kysely';

/**
 * Email delivery (issue 4):
 * - `send_started_at` marks that a provider call was begun for a send. A retry that finds it set
 *   without a provider message id cannot know whether the provider accepted the message, so it
 *   never sends again (exactly-once over at-least-once; docs/email.md).
 * - `send_attempts` counts provider failures so the send path, not the caller's retry policy,
 *   decides when a send has failed for good.
 * - `email_provider_notifications` remembers every processed SNS message id so a redelivered
 *   notification changes nothing twice (bounce counts in particular).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_sends
      add column send_started_at timestamptz,
      add column send_attempts integer not null default 0;
    create index email_sends_to_sent_idx on email_sends (lower(to_email), sent_at desc) where journey_state_id is not null;

    create table email_provider_notifications (
      message_id text primary key,
      notification_type text not null,
      received_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists email_provider_notifications;
    drop index if exists email_sends_to_sent_idx;
    alter table email_sends drop column if exists send_started_at, drop column if exists send_attempts;
  `.execute(db);
}
