import { sql, type Kysely } from 'kysely';

/**
 * A segment's event leaf (`performed <event> within <window>`, docs/segments.md) asks which users
 * have an event of one name since a moment. PostgreSQL answers it by reading that name's events in
 * the window and hashing their user ids; with `user_id` in the index that read is an index-only scan
 * instead of a visit to every matching event row (2M events: 3-4x less work for a 30-day window).
 *
 * The new index replaces events (event, occurred_at desc) of migration 0001, which it serves as
 * well (the events list filtered by name, newest first), so ingest still writes the same number of
 * indexes per event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index events_name_occurred_user_idx on events (event, occurred_at desc) include (user_id);
    drop index if exists events_name_occurred_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index if not exists events_name_occurred_idx on events (event, occurred_at desc);
    drop index if exists events_name_occurred_user_idx;
  `.execute(db);
}
