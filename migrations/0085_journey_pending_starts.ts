import { sql, type Kysely } from 'kysely';

/**
 * Journey starts kept while the workflow engine is unreachable (docs/operations.md, "Temporal
 * outage"): the ingest pipeline writes one row when a start fails because Temporal could not be
 * reached or timed out, before the event is acknowledged; the worker's relay starts it later with
 * backoff, under the same workflow id (so at most once), and parks it in the DLQ only after
 * JOURNEY_START_RETRY_HOURS. One row per (journey, user, trigger event), like the run it becomes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table journey_pending_starts (
      id uuid primary key default gen_random_uuid(),
      journey_id text not null,
      user_id text not null,
      event_id text not null,
      request jsonb not null,
      attempts integer not null default 1,
      last_error text not null,
      next_attempt_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      unique (journey_id, user_id, event_id)
    );
    create index journey_pending_starts_due_idx on journey_pending_starts (next_attempt_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists journey_pending_starts`.execute(db);
}
