import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A deleted broadcast leaves no counter behind (docs/broadcasts.md, "How stats are counted").
 *
 * Deleting a broadcast deletes its recipients by cascade, and the foreign key's delete fires its
 * statement triggers after the broadcast's own: 0135's `broadcast_counts_forget` cleared the
 * broadcast's broadcast_counts rows first, then the recipients' delete triggers (0135's counts,
 * 0245's goal counts) subtracted every recipient's buckets again, leaving rows with negative `n`
 * for a broadcast that is gone. 0270 already skipped gone broadcasts for broadcast_goal_days.
 *
 * One delete trigger now replaces those two: it subtracts a deleted recipient's buckets (its
 * outcome, its linked send's engagement, its goal arm) and its goal days only while its broadcast
 * still exists, so a recipient deleted on its own still moves the counters and a broadcast's
 * deletion leaves none. Their functions keep their DELETE branches, unused from here on (a
 * migration's SQL is fixed once applied; `down` points the old triggers at them again).
 */
const SHARDS = 8;

// These builders repeat 0135's, 0245's and 0270's on purpose: a migration's SQL is fixed once
// applied, so it does not share code that a later change could alter.

/** Recipients of `old_rows` whose broadcast still exists. */
const LIVING = sql`exists (select 1 from broadcasts b where b.id = r.broadcast_id)`;

/** Each living recipient's buckets, once apiece, negated: its outcome, its send's engagement, its goal arm. */
const buckets = sql`
  select r.broadcast_id, r.variant_id, b.bucket, -1 as d
  from old_rows r
  left join email_sends e on e.id = r.email_send_id and e.broadcast_id = r.broadcast_id
  cross join lateral unnest(
    broadcast_recipient_buckets(r.status, r.reason) || broadcast_send_buckets(e) || broadcast_goal_buckets(r.exposed_at, r.converted_at, r.reason)
  ) b (bucket)
  where ${LIVING}`;

/** Each living exposed recipient's exposure day and conversion day, negated. */
const days = sql`
  select r.broadcast_id, r.variant_id, d.day, r.reason is not distinct from 'holdout' as holdout, -d.exposed as exposed, -d.converted as converted
  from old_rows r
  cross join lateral (values ((r.exposed_at at time zone 'UTC')::date, 1, 0), ((r.converted_at at time zone 'UTC')::date, 0, 1)) d (day, exposed, converted)
  where r.exposed_at is not null and d.day is not null and ${LIVING}`;

/** Into this backend's shard, in key order (no deadlock between two writers), as 0135 and 0270 upsert. */
function upserts(): RawBuilder<unknown> {
  return sql`
    insert into broadcast_counts as c (broadcast_id, variant_id, bucket, shard, n)
      select x.broadcast_id, x.variant_id, x.bucket, pg_backend_pid() % ${sql.lit(SHARDS)}, sum(x.d)
      from (${buckets}) x
      group by 1, 2, 3 having sum(x.d) <> 0 order by 1, 2, 3
      on conflict on constraint broadcast_counts_key do update set n = c.n + excluded.n;
    insert into broadcast_goal_days as c (broadcast_id, variant_id, day, holdout, shard, exposed, converted)
      select x.broadcast_id, x.variant_id, x.day, x.holdout, pg_backend_pid() % ${sql.lit(SHARDS)}, sum(x.exposed), sum(x.converted)
      from (${days}) x
      group by 1, 2, 3, 4 having sum(x.exposed) <> 0 or sum(x.converted) <> 0 order by 1, 2, 3, 4
      on conflict on constraint broadcast_goal_days_key do update
        set exposed = c.exposed + excluded.exposed, converted = c.converted + excluded.converted`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function broadcast_recipients_uncount() returns trigger language plpgsql as $$
    begin
      -- the same lock as 0135's: a delivery notification racing this delete waits for it
      perform broadcast_counts_lock(array(select email_send_id from old_rows where email_send_id is not null));
      ${upserts()};
      return null;
    end $$;

    drop trigger broadcast_recipients_counts_delete on broadcast_recipients;
    drop trigger broadcast_recipients_goal_counts_delete on broadcast_recipients;
    create trigger broadcast_recipients_uncount after delete on broadcast_recipients
      referencing old table as old_rows for each statement execute function broadcast_recipients_uncount();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists broadcast_recipients_uncount on broadcast_recipients;
    drop function if exists broadcast_recipients_uncount;
    create trigger broadcast_recipients_counts_delete after delete on broadcast_recipients
      referencing old table as old_rows for each statement execute function broadcast_recipients_counts();
    create trigger broadcast_recipients_goal_counts_delete after delete on broadcast_recipients
      referencing old table as old_rows for each statement execute function broadcast_recipients_goal_counts();
  `.execute(db);
}
