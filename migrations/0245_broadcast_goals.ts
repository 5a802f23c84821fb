import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Goals and holdouts for broadcasts (docs/broadcasts.md, "Goals and holdouts").
 *
 * - broadcasts: the goal as given (`{event, within, where?}`), its window in milliseconds (what the
 *   ingest statement compares with), and the share held out (0–50 %).
 * - broadcast_recipients: `exposed_at`, when the recipient's turn came (their email was sent,
 *   skipped by their preferences, or held out: the moment it would have been sent), written only
 *   for a broadcast with a goal; `converted_at` and the converting event's id.
 * - The goal's counters go into broadcast_counts (0135) as buckets `goal:treatment`,
 *   `goal:holdout` (people exposed) and `goal:treatment:converted`, `goal:holdout:converted`, so
 *   reading them costs the same at any audience size. Statement-level triggers with transition
 *   tables add the new rows' buckets and subtract the old rows', in one upsert per statement, into
 *   the backend's shard, as 0135's do. An insert has none (a snapshot row is not exposed yet);
 *   0135's triggers already clear the counters on TRUNCATE and on a broadcast's deletion.
 * - An index finds a person's exposed, unconverted recipients by the key events carry (the user
 *   id, or the lowercased address for a contact without one); only goal broadcasts' recipients
 *   are in it.
 */
const SHARDS = 8;

// These builders repeat 0135's on purpose: a migration's SQL is fixed once applied, so it does not
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

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table broadcasts
      add column goal jsonb,
      add column goal_within_ms bigint,
      add column holdout_percent smallint not null default 0 check (holdout_percent between 0 and 50);
    alter table broadcast_recipients
      add column exposed_at timestamptz,
      add column converted_at timestamptz,
      add column conversion_event_id uuid;

    create index broadcast_recipients_goal_idx on broadcast_recipients (coalesce(user_id, lower(email)))
      where exposed_at is not null and converted_at is null;

    create function broadcast_goal_buckets(exposed_at timestamptz, converted_at timestamptz, reason text) returns text[] language sql immutable as $$
      select case when exposed_at is null then '{}'::text[]
        else array[arm] || case when converted_at is null then '{}'::text[] else array[arm || ':converted'] end end
      from (select case when reason = 'holdout' then 'goal:holdout' else 'goal:treatment' end as arm) a
    $$;

    create function broadcast_recipients_goal_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        ${upsertGoalCounts(goalBuckets('old_rows', -1))};
      else
        ${upsertGoalCounts(sql`${goalBuckets('new_rows', 1)} union all ${goalBuckets('old_rows', -1)}`)};
      end if;
      return null;
    end $$;

    create trigger broadcast_recipients_goal_counts_update after update on broadcast_recipients
      referencing old table as old_rows new table as new_rows for each statement execute function broadcast_recipients_goal_counts();
    create trigger broadcast_recipients_goal_counts_delete after delete on broadcast_recipients
      referencing old table as old_rows for each statement execute function broadcast_recipients_goal_counts();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists broadcast_recipients_goal_counts_update on broadcast_recipients;
    drop trigger if exists broadcast_recipients_goal_counts_delete on broadcast_recipients;
    drop function if exists broadcast_recipients_goal_counts, broadcast_goal_buckets;
    delete from broadcast_counts where bucket like 'goal:%';
    drop index if exists broadcast_recipients_goal_idx;
    alter table broadcast_recipients drop column if exists exposed_at, drop column if exists converted_at, drop column if exists conversion_event_id;
    alter table broadcasts drop column if exists goal, drop column if exists goal_within_ms, drop column if exists holdout_percent;
  `.execute(db);
}
