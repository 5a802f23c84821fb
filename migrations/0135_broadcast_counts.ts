import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A broadcast's stats as counters (docs/broadcasts.md, "How stats are counted"), so reading them
 * costs the same at 100 recipients and at 100,000 while the broadcast sends.
 *
 * broadcast_counts: one row per (broadcast, variant, bucket, shard); a bucket's value is the sum of
 * its shards. The buckets are a recipient's outcome (`sent`, `failed`, `cancelled`,
 * `skipped:<reason>`; `pending` is not counted) and, for the send its row links to
 * (`email_send_id`, of the same broadcast), the send's engagement: `delivered`, `bounced`,
 * `complained`, `opens:human` or `opens:machine`, `clicks:human` or `clicks:machine` (an email
 * opened by a scanner and later by its reader is a human open: the email counts once, by its
 * latest state).
 *
 * - broadcast_recipients: statement-level triggers with transition tables subtract the old rows'
 *   buckets and add the new rows', grouped, in one upsert per statement (a chunk's outcome update
 *   of 100 recipients costs one), into the shard of the backend's pid.
 * - email_sends: a row trigger whose WHEN clause lets through only a broadcast send whose
 *   engagement columns turn set (or whose broadcast changes), so journey sends and the send path's
 *   own updates pay nothing; it moves the send's buckets for the recipient linked to it. A
 *   BEFORE DELETE row trigger subtracts a deleted broadcast send's buckets (the foreign key's
 *   ON DELETE SET NULL unlinks the recipient only afterwards, when the send can no longer be read).
 * - Linking a send and changing its engagement can happen at once on two connections (a delivery
 *   notification racing the chunk's outcome update); each side would miss the other's uncommitted
 *   change. Both take a transaction-level advisory lock on the send's stripe (256 stripes by hash
 *   of its id) before reading the other side, so the second waits for the first to commit and
 *   then sees it. The lock is taken only for links that change and for broadcast engagement
 *   updates, and never blocks an ordinary write of either table.
 * - TRUNCATE of broadcast_recipients (email_sends and broadcasts can only be truncated with it)
 *   clears the counters; deleting a broadcast deletes its counters.
 *
 * Also the indexes those triggers and the stats read use: recipients by linked send; a
 * broadcast's sends by address and by sent time (replacing email_sends_broadcast_idx, which the
 * latter's leading column serves); preferences by time of change (`unsubscribed`, computed on read
 * from the preferences changed since the broadcast's first send).
 *
 * Existing rows are counted into shard 0 while SHARE ROW EXCLUSIVE locks keep writers of both tables
 * out until the triggers exist (one pass over the broadcasts' recipients).
 */
const SHARDS = 8;

/** Each row of `rows` (a broadcast_recipients row set) with its buckets, `sign` apiece. */
function contributions(rows: string, sign: 1 | -1): RawBuilder<unknown> {
  return sql`
    select r.broadcast_id, r.variant_id, b.bucket, ${sql.lit(sign)} as d
    from ${sql.table(rows)} r
    left join email_sends e on e.id = r.email_send_id and e.broadcast_id = r.broadcast_id
    cross join lateral unnest(broadcast_recipient_buckets(r.status, r.reason) || broadcast_send_buckets(e)) b (bucket)`;
}

/** Upserts `deltas` (broadcast_id, variant_id, bucket, d) into this backend's shard, in key order (no deadlock between two writers). */
function upsert(deltas: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into broadcast_counts as c (broadcast_id, variant_id, bucket, shard, n)
      select x.broadcast_id, x.variant_id, x.bucket, pg_backend_pid() % ${sql.lit(SHARDS)}, sum(x.d)
      from (${deltas}) x
      group by 1, 2, 3 having sum(x.d) <> 0 order by 1, 2, 3
      on conflict on constraint broadcast_counts_key do update set n = c.n + excluded.n`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table broadcast_counts (
      broadcast_id uuid not null,
      variant_id text,
      bucket text not null,
      shard smallint not null,
      n bigint not null default 0,
      constraint broadcast_counts_key unique nulls not distinct (broadcast_id, variant_id, bucket, shard)
    );

    create function broadcast_recipient_buckets(status text, reason text) returns text[] language sql immutable as $$
      select case status when 'pending' then '{}'::text[] when 'skipped' then array['skipped:' || coalesce(reason, '')] else array[status] end
    $$;

    -- a null send (no linked send) has no buckets
    create function broadcast_send_buckets(e email_sends) returns text[] language sql immutable as $$
      select array_remove(array[
        case when e.delivered_at is not null then 'delivered' end,
        case when e.bounced_at is not null then 'bounced' end,
        case when e.complained_at is not null then 'complained' end,
        case when e.human_opened_at is not null then 'opens:human' when e.opened_at is not null then 'opens:machine' end,
        case when e.human_clicked_at is not null then 'clicks:human' when e.clicked_at is not null then 'clicks:machine' end
      ], null)
    $$;

    create function broadcast_counts_lock(send_ids uuid[]) returns void language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(hashtext('waymark:broadcast-counts'), s.stripe)
      from (select distinct hashtext(id::text) & 255 as stripe from unnest(send_ids) id where id is not null order by 1) s;
    end $$;

    -- one function for the three operations: plpgsql plans a statement when it first runs it, so
    -- a branch naming a transition table the trigger does not have is never planned
    create function broadcast_recipients_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        perform broadcast_counts_lock(array(select email_send_id from new_rows where email_send_id is not null));
        ${upsert(contributions('new_rows', 1))};
      elsif tg_op = 'DELETE' then
        perform broadcast_counts_lock(array(select email_send_id from old_rows where email_send_id is not null));
        ${upsert(contributions('old_rows', -1))};
      else
        perform broadcast_counts_lock(array(
          select unnest(array[o.email_send_id, n.email_send_id])
          from new_rows n full join old_rows o on o.broadcast_id = n.broadcast_id and o.contact_id = n.contact_id
          where n.email_send_id is distinct from o.email_send_id
        ));
        ${upsert(sql`${contributions('new_rows', 1)} union all ${contributions('old_rows', -1)}`)};
      end if;
      return null;
    end $$;

    create function email_sends_broadcast_counts() returns trigger language plpgsql as $$
    begin
      perform broadcast_counts_lock(array[old.id]);
      if tg_op = 'UPDATE' then
        ${upsert(sql`
          select r.broadcast_id, r.variant_id, b.bucket, s.d
          from (values (old.id, old.broadcast_id, broadcast_send_buckets(old), -1), (new.id, new.broadcast_id, broadcast_send_buckets(new), 1)) s (id, broadcast_id, buckets, d)
          join broadcast_recipients r on r.email_send_id = s.id and r.broadcast_id = s.broadcast_id
          cross join lateral unnest(s.buckets) b (bucket)`)};
      else
        ${upsert(sql`
          select r.broadcast_id, r.variant_id, b.bucket, -1 as d
          from broadcast_recipients r cross join lateral unnest(broadcast_send_buckets(old)) b (bucket)
          where r.email_send_id = old.id and r.broadcast_id = old.broadcast_id`)};
      end if;
      return old;
    end $$;

    create function broadcast_counts_truncate() returns trigger language plpgsql as $$
    begin
      delete from broadcast_counts;
      return null;
    end $$;

    create function broadcast_counts_forget() returns trigger language plpgsql as $$
    begin
      delete from broadcast_counts where broadcast_id in (select id from old_rows);
      return null;
    end $$;

    create index broadcast_recipients_send_idx on broadcast_recipients (email_send_id) where email_send_id is not null;
    create index email_sends_broadcast_sent_idx on email_sends (broadcast_id, sent_at) where broadcast_id is not null;
    create index email_sends_broadcast_to_idx on email_sends (broadcast_id, lower(to_email)) where broadcast_id is not null;
    drop index email_sends_broadcast_idx;
    create index email_preferences_updated_idx on email_preferences (updated_at);

    lock table broadcast_recipients, email_sends in share row exclusive mode;
    insert into broadcast_counts (broadcast_id, variant_id, bucket, shard, n)
      select x.broadcast_id, x.variant_id, x.bucket, 0, count(*) from (${contributions('broadcast_recipients', 1)}) x group by 1, 2, 3;

    create trigger broadcast_recipients_counts_insert after insert on broadcast_recipients
      referencing new table as new_rows for each statement execute function broadcast_recipients_counts();
    create trigger broadcast_recipients_counts_update after update on broadcast_recipients
      referencing old table as old_rows new table as new_rows for each statement execute function broadcast_recipients_counts();
    create trigger broadcast_recipients_counts_delete after delete on broadcast_recipients
      referencing old table as old_rows for each statement execute function broadcast_recipients_counts();
    create trigger broadcast_recipients_counts_truncate after truncate on broadcast_recipients
      for each statement execute function broadcast_counts_truncate();
    create trigger broadcasts_counts_delete after delete on broadcasts
      referencing old table as old_rows for each statement execute function broadcast_counts_forget();

    create trigger email_sends_broadcast_counts_update after update on email_sends for each row
      when ((old.broadcast_id is not null or new.broadcast_id is not null) and (
        old.broadcast_id is distinct from new.broadcast_id
        or (old.delivered_at is null) <> (new.delivered_at is null)
        or (old.bounced_at is null) <> (new.bounced_at is null)
        or (old.complained_at is null) <> (new.complained_at is null)
        or (old.opened_at is null) <> (new.opened_at is null)
        or (old.human_opened_at is null) <> (new.human_opened_at is null)
        or (old.clicked_at is null) <> (new.clicked_at is null)
        or (old.human_clicked_at is null) <> (new.human_clicked_at is null)))
      execute function email_sends_broadcast_counts();
    create trigger email_sends_broadcast_counts_delete before delete on email_sends for each row
      when (old.broadcast_id is not null) execute function email_sends_broadcast_counts();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists broadcast_recipients_counts_insert on broadcast_recipients;
    drop trigger if exists broadcast_recipients_counts_update on broadcast_recipients;
    drop trigger if exists broadcast_recipients_counts_delete on broadcast_recipients;
    drop trigger if exists broadcast_recipients_counts_truncate on broadcast_recipients;
    drop trigger if exists broadcasts_counts_delete on broadcasts;
    drop trigger if exists email_sends_broadcast_counts_update on email_sends;
    drop trigger if exists email_sends_broadcast_counts_delete on email_sends;
    drop function if exists broadcast_recipients_counts, email_sends_broadcast_counts, broadcast_counts_truncate, broadcast_counts_forget;
    drop function if exists broadcast_counts_lock, broadcast_send_buckets, broadcast_recipient_buckets;
    drop table if exists broadcast_counts;
    drop index if exists email_preferences_updated_idx;
    drop index if exists email_sends_broadcast_to_idx;
    drop index if exists broadcast_recipients_send_idx;
    create index if not exists email_sends_broadcast_idx on email_sends (broadcast_id) where broadcast_id is not null;
    drop index if exists email_sends_broadcast_sent_idx;
  `.execute(db);
}
