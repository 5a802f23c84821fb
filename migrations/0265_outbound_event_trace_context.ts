import { sql, type Kysely } from 'kysely';

/**
 * outbound_events.trace_context: the W3C `traceparent` of the work whose change the outbound event
 * reports, when tracing is on (docs/operations.md, "Tracing"). Most rows are written by triggers
 * (0016_outbound_event_triggers.ts), which cannot see the application's span: with tracing on,
 * each statement's connection holds the active span's `traceparent` in the setting
 * `waymark.trace_context` (db/trace-context-dialect.ts), and this column's default reads it, so
 * every writer (each trigger, the test event) keeps it without a change of its own. The delivery
 * slot continues that trace when it delivers the event to each endpoint. Null when tracing is off
 * (the setting is never set) or the change happened outside any span.
 *
 * The default is set apart from the column: a column added with a default that is not a constant
 * would rewrite the table, added bare it rewrites nothing and the default applies to new rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table outbound_events add column trace_context text;
    alter table outbound_events alter column trace_context set default nullif(current_setting('waymark.trace_context', true), '');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table outbound_events drop column if exists trace_context`.execute(db);
}
