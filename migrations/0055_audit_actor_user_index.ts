import { sql, type Kysely } from 'kysely';

/**
 * `GET /v1/admin/audit-logs?actor=<user id>` finds a signed-in user's rows by `actor_user_id`
 * (an email is found by `actor`, which 0001 indexes); only user rows carry an id, so the index
 * is partial.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index audit_logs_actor_user_idx on audit_logs (actor_user_id, created_at desc) where actor_user_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists audit_logs_actor_user_idx`.execute(db);
}
