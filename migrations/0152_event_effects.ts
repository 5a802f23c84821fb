import { sql, type Kysely } from 'kysely';

/**
 * The outbox of an event's journey effects (docs/operations.md, "Temporal outage"): the journey
 * starts it triggers, the signals to the runs waiting for it and the cancellations of the runs it
 * exits, written by the statement that stores the event, so an acknowledged event has its effects
 * kept whatever happens after the commit. The process that stored the event carries them out at
 * once; the worker's relay carries out whatever is left (an api killed after the commit, Temporal
 * unreachable) with backoff. A row holds what the event row does not: the effect's kind, its
 * journey and, for a signal or an exit, the run's workflow id; the rest is read from the event.
 *
 * Keyed by (event id, ordinal): event ids are time-ordered (UUIDv7), so the insert lands at the
 * right edge of the key, and a retried request finds its event's rows by the key's prefix.
 * Replaces journey_pending_starts (0085), whose rows move here as pending starts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table event_effects (
      event_id uuid not null,
      seq smallint not null,
      kind text not null check (kind in ('start', 'signal', 'exit')),
      user_id text not null,
      journey_id text not null,
      workflow_id text,
      attempts integer not null default 0,
      last_error text,
      next_attempt_at timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (event_id, seq)
    );
    create index event_effects_due_idx on event_effects (next_attempt_at);
    insert into event_effects (event_id, seq, kind, user_id, journey_id, attempts, last_error, next_attempt_at, created_at)
      select event_id::uuid, (row_number() over (partition by event_id order by journey_id))::smallint, 'start', user_id, journey_id,
             attempts, last_error, next_attempt_at, created_at
      from journey_pending_starts
      where event_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    drop table journey_pending_starts;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
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
    drop table if exists event_effects;
  `.execute(db);
}
