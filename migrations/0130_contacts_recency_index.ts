import { sql, type Kysely } from 'kysely';

/**
 * The admin contacts list (newest `lastSeenAt` first) without a top-N sort of every contact, and
 * without giving up the HOT update every ingested event makes to its contact (migration 0005).
 *
 * `last_seen_minute` is `last_seen_at` truncated to the minute (UTC), a stored generated column, and
 * only it is indexed. PostgreSQL decides HOT by comparing the indexed columns' old and new values:
 * a contact seen again within the same minute keeps the same `last_seen_minute`, so its update stays
 * HOT; only the first event of a new minute writes the indexes. The list orders by
 * (last_seen_minute, last_seen_at, id): the index gives the minutes in order, and an incremental
 * sort orders the rows of the newest minutes among themselves, stopping once the page is full
 * (docs/scaling.md, "Admin lists at 1M events").
 *
 * Adding a stored generated column rewrites the table under an exclusive lock (about 2 s per 200k
 * contacts on the 2-core box); plan it for a quiet moment on a large installation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table contacts add column last_seen_minute timestamp
      generated always as (date_trunc('minute', last_seen_at at time zone 'UTC')) stored;
    create index contacts_last_seen_minute_idx on contacts (last_seen_minute desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists contacts_last_seen_minute_idx;
    alter table contacts drop column if exists last_seen_minute;
  `.execute(db);
}
