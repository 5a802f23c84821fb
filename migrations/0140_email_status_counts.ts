import { sql, type Kysely } from 'kysely';
import { emailSendsFilterCounts } from './0132_filter_counts';

/**
 * An exact `total` for the emails list filtered by `status` alone without counting its rows
 * (docs/scaling.md, "Admin lists at 1M events"): at 100k sends, `?status=sent` counted 100k index
 * entries on every page, the slowest part of the page.
 *
 * `filter_counts` (0132) gains ('email_sends', 'status', value) rows. Inserts and deletes are
 * counted per statement by the existing trigger, whose function now groups by status as well as by
 * template. A status change is a row trigger that fires only when the status changes (`UPDATE OF
 * status … WHEN (old.status IS DISTINCT FROM new.status)`, as for a journey's states in 0070): a
 * send moves queued → rendered → sent (then delivered, opened, …), and each move adds one upsert of
 * two counter rows (old −1, new +1, in value order so two movers lock them in the same order); an
 * update that leaves the status alone (a released claim, an error message) pays nothing.
 *
 * Existing rows are counted into shard 0 while a SHARE ROW EXCLUSIVE lock keeps writers out until
 * the trigger exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    lock table email_sends in share row exclusive mode;

    create or replace function email_sends_filter_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into filter_counts as c (table_name, column_name, value, shard, n)
          select 'email_sends', f.col, f.val, pg_backend_pid() % 8, count(*)
          from new_rows r, lateral (values ('status', r.status), ('template_key', r.template_key)) f (col, val)
          group by f.col, f.val order by f.col, f.val
          on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
      else
        insert into filter_counts as c (table_name, column_name, value, shard, n)
          select 'email_sends', f.col, f.val, pg_backend_pid() % 8, -count(*)
          from old_rows r, lateral (values ('status', r.status), ('template_key', r.template_key)) f (col, val)
          group by f.col, f.val order by f.col, f.val
          on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
      end if;
      return null;
    end $$;

    create function email_sends_status_counts_update() returns trigger language plpgsql as $$
    begin
      insert into filter_counts as c (table_name, column_name, value, shard, n)
        select 'email_sends', 'status', v, pg_backend_pid() % 8, d from (values (old.status, -1), (new.status, 1)) s (v, d) order by v
        on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
      return null;
    end $$;

    insert into filter_counts (table_name, column_name, value, shard, n)
      select 'email_sends', 'status', status, 0, count(*) from email_sends group by status;
    create trigger email_sends_status_counts_update after update of status on email_sends
      for each row when (old.status is distinct from new.status)
      execute function email_sends_status_counts_update();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists email_sends_status_counts_update on email_sends;
    drop function if exists email_sends_status_counts_update;
    ${emailSendsFilterCounts};
    delete from filter_counts where table_name = 'email_sends' and column_name = 'status';
  `.execute(db);
}
