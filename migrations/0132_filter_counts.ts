import { sql, type Kysely } from 'kysely';

/**
 * Exact totals for the admin lists' broad filters without counting their rows (docs/scaling.md,
 * "Admin lists at 1M events"): the audit log by `actor`, `resource` or `action`, and the emails list
 * by `templateKey`, each filter alone. Such a filter can match every row (one template, one key
 * writing the whole log), and its count was the largest part of the page.
 *
 * filter_counts: one row per (table, column, value, shard), kept like row_counts (0070): a
 * statement-level trigger with a transition table adds each INSERT's (subtracts each DELETE's) rows,
 * grouped by value, to the shard of the backend's pid; TRUNCATE clears the table's rows; a rollback
 * undoes them. Only columns no write path updates are counted (an audit row is never updated; a
 * send's template is set when it is queued), so no row trigger is needed and no UPDATE pays
 * anything. An email's `status` is not counted here: it changes several times per send, on the
 * send and tracking paths.
 *
 * Existing rows are counted into shard 0 while a SHARE ROW EXCLUSIVE lock keeps writers out until
 * the triggers exist.
 */
/** The send counter's function as this migration makes it: counting templates only (0140's down restores it). */
export const emailSendsFilterCounts = sql`
  create or replace function email_sends_filter_counts() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into filter_counts as c (table_name, column_name, value, shard, n)
        select 'email_sends', 'template_key', template_key, pg_backend_pid() % 8, count(*) from new_rows group by template_key order by template_key
        on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
    else
      insert into filter_counts as c (table_name, column_name, value, shard, n)
        select 'email_sends', 'template_key', template_key, pg_backend_pid() % 8, -count(*) from old_rows group by template_key order by template_key
        on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
    end if;
    return null;
  end $$
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table filter_counts (
      table_name text not null,
      column_name text not null,
      value text not null,
      shard smallint not null,
      n bigint not null default 0,
      primary key (table_name, column_name, value, shard)
    );

    create function audit_logs_filter_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into filter_counts as c (table_name, column_name, value, shard, n)
          select 'audit_logs', f.col, f.val, pg_backend_pid() % 8, count(*)
          from new_rows r, lateral (values ('actor', r.actor), ('resource', r.resource), ('action', r.action)) f (col, val)
          group by f.col, f.val order by f.col, f.val
          on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
      else
        insert into filter_counts as c (table_name, column_name, value, shard, n)
          select 'audit_logs', f.col, f.val, pg_backend_pid() % 8, -count(*)
          from old_rows r, lateral (values ('actor', r.actor), ('resource', r.resource), ('action', r.action)) f (col, val)
          group by f.col, f.val order by f.col, f.val
          on conflict (table_name, column_name, value, shard) do update set n = c.n + excluded.n;
      end if;
      return null;
    end $$;

    ${emailSendsFilterCounts};

    create function filter_counts_truncate() returns trigger language plpgsql as $$
    begin
      delete from filter_counts where table_name = tg_table_name;
      return null;
    end $$;

    lock table audit_logs in share row exclusive mode;
    insert into filter_counts (table_name, column_name, value, shard, n)
      select 'audit_logs', f.col, f.val, 0, count(*)
      from audit_logs r, lateral (values ('actor', r.actor), ('resource', r.resource), ('action', r.action)) f (col, val)
      group by f.col, f.val;
    create trigger audit_logs_filter_counts_insert after insert on audit_logs
      referencing new table as new_rows for each statement execute function audit_logs_filter_counts();
    create trigger audit_logs_filter_counts_delete after delete on audit_logs
      referencing old table as old_rows for each statement execute function audit_logs_filter_counts();
    create trigger audit_logs_filter_counts_truncate after truncate on audit_logs
      for each statement execute function filter_counts_truncate();

    lock table email_sends in share row exclusive mode;
    insert into filter_counts (table_name, column_name, value, shard, n)
      select 'email_sends', 'template_key', template_key, 0, count(*) from email_sends group by template_key;
    create trigger email_sends_filter_counts_insert after insert on email_sends
      referencing new table as new_rows for each statement execute function email_sends_filter_counts();
    create trigger email_sends_filter_counts_delete after delete on email_sends
      referencing old table as old_rows for each statement execute function email_sends_filter_counts();
    create trigger email_sends_filter_counts_truncate after truncate on email_sends
      for each statement execute function filter_counts_truncate();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists audit_logs_filter_counts_insert on audit_logs;
    drop trigger if exists audit_logs_filter_counts_delete on audit_logs;
    drop trigger if exists audit_logs_filter_counts_truncate on audit_logs;
    drop trigger if exists email_sends_filter_counts_insert on email_sends;
    drop trigger if exists email_sends_filter_counts_delete on email_sends;
    drop trigger if exists email_sends_filter_counts_truncate on email_sends;
    drop function if exists audit_logs_filter_counts, email_sends_filter_counts, filter_counts_truncate;
    drop table if exists filter_counts;
  `.execute(db);
}
