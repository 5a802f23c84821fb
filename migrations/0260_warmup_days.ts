import { sql, type Kysely } from 'kysely';

/**
 * The warm-up ramp (docs/email.md, "Warm-up"):
 *
 * - warmup_days: per UTC day of the ramp, the marketing sends it let through, claimed as each send
 *   is admitted, so a restart (or a second worker) finds today's use where it was. The ramp's day
 *   count is the number of rows: a day that sent no marketing mail does not move it.
 * - broadcasts.warmup_until: set when a chunk found today's allowance spent and left the rest of
 *   its recipients for the next day, so the broadcast's status says why it is still sending.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table warmup_days (
      day date primary key,
      used integer not null default 0 check (used >= 0),
      updated_at timestamptz not null default now()
    );
    alter table broadcasts add column warmup_until timestamptz;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table broadcasts drop column warmup_until;
    drop table warmup_days;
  `.execute(db);
}
