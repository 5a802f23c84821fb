import { sql, type Kysely } from 'kysely';

/**
 * How far the apis have checked that every recorded open and click has its event
 * (docs/email.md, "Tracking"). An api queues `email.opened` / `email.link_clicked` in memory
 * after the hit is written; one killed outright loses that queue. Every api looks, every few
 * seconds, at the hits written since `swept_until` (older than a grace that outlasts the queue)
 * for those whose event is missing, stores those events, and moves the mark on. One row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table tracking_event_sweeps (
      id smallint primary key default 1 check (id = 1),
      swept_until timestamptz not null
    );
    insert into tracking_event_sweeps (swept_until) values (now());
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists tracking_event_sweeps`.execute(db);
}
