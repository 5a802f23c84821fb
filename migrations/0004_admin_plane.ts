import { sql, type Kysely } from 'kysely';

/**
 * Admin plane (issue 5): indexes for the contact timeline and the metrics window.
 * - journey states of one user, newest first (timeline "journey" branch; paginated in SQL);
 * - journey states and email sends by time (GET /v1/admin/metrics, alert windows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index if not exists journey_states_user_created_idx on journey_states (user_id, created_at desc);
    create index if not exists journey_states_created_idx on journey_states (created_at);
    create index if not exists journey_states_failed_updated_idx on journey_states (updated_at) where status = 'failed';
    create index if not exists email_sends_sent_idx on email_sends (sent_at) where sent_at is not null;
    create index if not exists email_sends_to_created_idx on email_sends (lower(to_email), created_at desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists journey_states_user_created_idx;
    drop index if exists journey_states_created_idx;
    drop index if exists journey_states_failed_updated_idx;
    drop index if exists email_sends_sent_idx;
    drop index if exists email_sends_to_created_idx;
  `.execute(db);
}
