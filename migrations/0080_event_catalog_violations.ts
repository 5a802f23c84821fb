import { sql, type Kysely } from 'kysely';

/**
 * Catalog violations are kept (docs/journeys.md, "Catalog violations"): with
 * EVENT_CATALOG_MODE=quarantine, a catalogued event whose properties miss its schema is stored
 * with its violations (`[{path, message}]`) and routed nowhere; every other event has null here.
 *
 * The column is nullable without a default, so adding it rewrites no row. The partial index holds
 * only quarantined events, in the admin list's order: `GET /v1/admin/events?quarantined=true` and
 * the studio's count of them read it instead of scanning every event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table events add column catalog_violations jsonb;
    create index events_quarantined_idx on events (occurred_at desc, id desc) where catalog_violations is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists events_quarantined_idx;
    alter table events drop column if exists catalog_violations;
  `.execute(db);
}
