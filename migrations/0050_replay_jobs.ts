import { sql, type Kysely } from 'kysely';

/**
 * Background event replays (POST /v1/admin/events/replay-jobs, docs/operations.md). A job stores
 * its selection; its first step snapshots the matched event ids in order into replay_job_events,
 * so the set never grows with the events the replay itself stores (they match the same filter),
 * and a resumed run walks the same positions. Progress counters move once per recorded chunk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table replay_jobs (
      id uuid primary key default gen_random_uuid(),
      status text not null default 'pending' check (status in ('pending', 'processing', 'completed', 'failed')),
      selection jsonb not null,
      snapshot_taken boolean not null default false,
      matched integer not null default 0,
      processed integer not null default 0,
      failed integer not null default 0,
      errors jsonb not null default '[]'::jsonb,
      created_by text,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table replay_job_events (
      job_id uuid not null references replay_jobs (id) on delete cascade,
      position integer not null,
      event_id uuid not null,
      primary key (job_id, position)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table replay_job_events, replay_jobs`.execute(db);
}
