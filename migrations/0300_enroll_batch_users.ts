import { sql, type Kysely } from 'kysely';

/**
 * enroll_batch_users: the users of a batch enrollment (POST /v1/admin/journeys/{id}/enroll/batch)
 * still to be dispatched. The batch's background run reads its chunks from here instead of carrying
 * the users in its Temporal input, so an erasure (DELETE /v1/contacts/{id}) can reach the person's
 * row before the run enrols them again; each chunk's rows go once dispatched (docs/journeys.md,
 * "Batch enrollment").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table enroll_batch_users (
      batch_id uuid not null,
      position integer not null,
      user_id text not null,
      user_email text not null,
      properties jsonb not null default '{}',
      created_at timestamptz not null default now(),
      primary key (batch_id, position)
    )`.execute(db);
  await sql`create index enroll_batch_users_user_id_idx on enroll_batch_users (user_id)`.execute(db);
  await sql`create index enroll_batch_users_email_idx on enroll_batch_users (lower(user_email))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists enroll_batch_users`.execute(db);
}
