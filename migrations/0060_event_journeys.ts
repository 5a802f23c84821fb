import { sql, type Kysely } from 'kysely';

/**
 * Which journeys an event started, resumed or exited (the studio's event detail,
 * GET /v1/admin/events/{id}/journeys), answered by index instead of a scan of every state and log.
 *
 * - journey_states.trigger_event_id: the stored event a run started from, generated from the
 *   state's `context.trigger.eventId` (written once, at entry). A run restarted from the DLQ
 *   carries `<event id>.retry-<dlq id>` there (the suffix keeps its workflow id unique), so the
 *   column keeps the leading UUID: the retried run still counts as started by that event.
 *   Generated, so no writer can forget it; its value never changes, so a state's step updates stay HOT.
 * - journey_logs.detail ->> 'eventId': exit-rule exits and a wait's `resumed` step name the event
 *   that caused them. Partial: most log rows (entered, email_sent, waiting …) carry none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table journey_states add column trigger_event_id uuid generated always as (
      (substring(context -> 'trigger' ->> 'eventId' from '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'))::uuid
    ) stored;
    create index journey_states_trigger_event_idx on journey_states (trigger_event_id) where trigger_event_id is not null;
    create index journey_logs_event_idx on journey_logs ((detail ->> 'eventId')) where (detail ->> 'eventId') is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists journey_logs_event_idx;
    alter table journey_states drop column if exists trigger_event_id;
  `.execute(db);
}
