import { sql, type Kysely } from 'kysely';

/**
 * A click that looks like a person's inside the machine-click window is settled a second later
 * (too_fast or a person's: docs/email.md, "Machine opens and clicks"). That second lived only in
 * the api's memory, so an api stopped within it lost the click's event. `pending` marks such a
 * click in its row until it is settled; any api settles the ones left behind (record-click.ts).
 * The partial index holds only the unsettled clicks: a handful at any moment.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table link_clicks add column pending boolean not null default false;
    create index link_clicks_pending_idx on link_clicks (clicked_at) where pending;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists link_clicks_pending_idx;
    alter table link_clicks drop column if exists pending;
  `.execute(db);
}
