import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A goal broadcast's conversions over time (docs/broadcasts.md, "Goals and holdouts"): the goal's
 * counters of 0245 again, per UTC day, so `stats.goal.daily` (the studio's chart) reads a few rows
 * per day whatever the audience size.
 *
 * - broadcast_goal_days: per (broadcast, variant, day, arm, shard), the recipients exposed that day
 *   (`exposed_at`'s day) and the recipients who converted that day (`converted_at`'s day). A
 *   conversion is counted on the day it happened rather than on its person's exposure day (as a
 *   journey counts it on the entry day): a broadcast exposes nearly everyone at once, so by
 *   exposure day the chart would be one point, while by conversion day the running sums show each
 *   arm's rate climbing through the goal's window.
 * - The statement-level trigger function of 0245 (`broadcast_recipients_goal_counts`, on update and
 *   delete of broadcast_recipients) keeps both tables, from the same transition tables: the new
 *   rows' days added, the old rows' subtracted, one upsert per statement into the backend's shard.
 *   A statement that changes neither time nor arm adds and subtracts the same and writes nothing.
 * - 0135's functions that clear broadcast_counts on TRUNCATE of broadcast_recipients and on a
 *   broadcast's deletion clear these rows too; a delete of recipients subtracts only for a
 *   broadcast that still exists (see goalDays).
 *
 * Existing goal broadcasts' recipients are counted into shard 0 while a SHARE ROW EXCLUSIVE lock
 * keeps writers out until the function counts them (one pass over the exposed recipients).
 */
const SHARDS = 8;

// These builders repeat 0245's on purpose: a migration's SQL is fixed once applied, so it does not
// share code that a later change could alter.

function goalBuckets(rows: string, sign: 1 | -1): RawBuilder<unknown> {
  return sql`
    select r.broadcast_id, r.variant_id, b.bucket, ${sql.lit(sign)} as d
    from ${sql.table(rows)} r cross join lateral unnest(broadcast_goal_buckets(r.exposed_at, r.converted_at, r.reason)) b (bucket)`;
}

function upsertGoalCounts(deltas: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into broadcast_counts as c (broadcast_id, variant_id, bucket, shard, n)
      select x.broadcast_id, x.variant_id, x.bucket, pg_backend_pid() % ${sql.lit(SHARDS)}, sum(x.d)
      from (${deltas}) x
      group by 1, 2, 3 having sum(x.d) <> 0 order by 1, 2, 3
      on conflict on constraint broadcast_counts_key do update set n = c.n + excluded.n`;
}

/**
 * Each exposed row of `rows` as its exposure day and, once converted, its conversion day, `sign`
 * apiece (the arm as 0245's buckets read it). `ofLiving` keeps only rows whose broadcast still
 * exists: a broadcast's deletion deletes its recipients by cascade, and that delete's statement
 * trigger fires after the broadcast's own (which cleared the days), so its subtractions would be
 * left behind as negative rows of a broadcast that is gone.
 */
function goalDays(rows: string, sign: 1 | -1, ofLiving = false): RawBuilder<unknown> {
  return sql`
    select r.broadcast_id, r.variant_id, d.day, r.reason is not distinct from 'holdout' as holdout,
           ${sql.lit(sign)} * d.exposed as exposed, ${sql.lit(sign)} * d.converted as converted
    from ${sql.table(rows)} r
    cross join lateral (values ((r.exposed_at at time zone 'UTC')::date, 1, 0), ((r.converted_at at time zone 'UTC')::date, 0, 1)) d (day, exposed, converted)
    where r.exposed_at is not null and d.day is not null
      ${ofLiving ? sql`and exists (select 1 from broadcasts b where b.id = r.broadcast_id)` : sql``}`;
}

/** Upserts day deltas into this backend's shard, in key order (no deadlock between two writers). */
function upsertGoalDays(deltas: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into broadcast_goal_days as c (broadcast_id, variant_id, day, holdout, shard, exposed, converted)
      select x.broadcast_id, x.variant_id, x.day, x.holdout, pg_backend_pid() % ${sql.lit(SHARDS)}, sum(x.exposed), sum(x.converted)
      from (${deltas}) x
      group by 1, 2, 3, 4 having sum(x.exposed) <> 0 or sum(x.converted) <> 0 order by 1, 2, 3, 4
      on conflict on constraint broadcast_goal_days_key do update
        set exposed = c.exposed + excluded.exposed, converted = c.converted + excluded.converted`;
}

/**
 * The goal trigger's function and 0135's clearing functions: with `days`, keeping and clearing
 * broadcast_goal_days too; without, as 0245 and 0135 left them (what `down` restores).
 */
function functions(days: boolean): RawBuilder<unknown> {
  const also = (statement: RawBuilder<unknown>) => (days ? sql`${statement};` : sql``);
  return sql`
    create or replace function broadcast_recipients_goal_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        ${upsertGoalCounts(goalBuckets('old_rows', -1))};
        ${also(upsertGoalDays(goalDays('old_rows', -1, true)))}
      else
        ${upsertGoalCounts(sql`${goalBuckets('new_rows', 1)} union all ${goalBuckets('old_rows', -1)}`)};
        ${also(upsertGoalDays(sql`${goalDays('new_rows', 1)} union all ${goalDays('old_rows', -1)}`))}
      end if;
      return null;
    end $$;

    create or replace function broadcast_counts_truncate() returns trigger language plpgsql as $$
    begin
      delete from broadcast_counts;
      ${also(sql`delete from broadcast_goal_days`)}
      return null;
    end $$;

    create or replace function broadcast_counts_forget() returns trigger language plpgsql as $$
    begin
      delete from broadcast_counts where broadcast_id in (select id from old_rows);
      ${also(sql`delete from broadcast_goal_days where broadcast_id in (select id from old_rows)`)}
      return null;
    end $$`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table broadcast_goal_days (
      broadcast_id uuid not null,
      variant_id text,
      day date not null,
      holdout boolean not null,
      shard smallint not null,
      exposed bigint not null default 0,
      converted bigint not null default 0,
      constraint broadcast_goal_days_key unique nulls not distinct (broadcast_id, day, variant_id, holdout, shard)
    );

    lock table broadcast_recipients in share row exclusive mode;
    insert into broadcast_goal_days (broadcast_id, variant_id, day, holdout, shard, exposed, converted)
      select x.broadcast_id, x.variant_id, x.day, x.holdout, 0, sum(x.exposed), sum(x.converted)
      from (${goalDays('broadcast_recipients', 1)}) x
      group by 1, 2, 3, 4;

    ${functions(true)};
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ${functions(false)};
    drop table if exists broadcast_goal_days;
  `.execute(db);
}
