import { sql, type Kysely } from 'kysely';

/**
 * event_effects.trace_context: the W3C `traceparent` of the request that stored the event, when
 * tracing is on (docs/operations.md, "Tracing"). Whoever carries the effect out (the process that
 * stored it or the worker's relay, maybe after an outage) continues that trace, so the journey run
 * it starts or signals is in the same trace as the request. Null when tracing is off.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table event_effects add column trace_context text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table event_effects drop column if exists trace_context`.execute(db);
}
