import { sql, type Kysely } from 'kysely';

/**
 * Journey simulation jobs (POST /v1/admin/journeys/{id}/simulate, docs/journeys.md): the one row a
 * simulation writes. The worker records progress while it replays the window and the report when
 * it is done; the simulation itself sends and stores nothing else.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table simulation_jobs (
      id uuid primary key default gen_random_uuid(),
      journey_id text not null,
      status text not null default 'pending' check (status in ('pending', 'processing', 'completed', 'failed')),
      window_since timestamptz not null,
      window_until timestamptz not null,
      max_enrollments integer not null,
      processed integer not null default 0,
      total integer,
      result jsonb,
      error text,
      created_by text,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index simulation_jobs_journey_idx on simulation_jobs (journey_id, created_at desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists simulation_jobs`.execute(db);
}
