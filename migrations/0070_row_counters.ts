import { sql, type Kysely } from 'kysely';

/**
 * Exact row counts the admin lists read instead of counting every row (docs/scaling.md, "Admin
 * lists at 1M events"): an unfiltered `total` on the events, contacts, emails and audit-log lists,
 * and a journey's per-status counts.
 *
 * - row_counts: one row per (table, shard); a table's count is the sum of its shards. A
 *   statement-level trigger with a transition table adds each INSERT's or DELETE's row count (one
 *   UPDATE per statement, not per row) to the shard picked by the backend's pid, so concurrent
 *   ingest connections mostly update different rows instead of queueing on one. TRUNCATE zeroes
 *   the table's shards. The counters change in the writing transaction, so a rollback undoes them.
 * - journey_state_counts: the same per (journey, status, shard). Inserts and deletes are counted
 *   per statement; a status change is a row trigger that fires only when the status changes, so a
 *   run's step updates (current node, context) pay nothing and stay HOT.
 *
 * Existing rows are counted once, into shard 0, while a SHARE ROW EXCLUSIVE lock keeps writers out
 * until the triggers exist: on a large table that blocks ingest for as long as one count(*) takes
 * (~0.25 s per million events on a 2-core box).
 */
const COUNTED_TABLES = ['events', 'contacts', 'email_sends', 'audit_logs'] as const;

/**
 * The counter function: each INSERT's (or DELETE's) row count added to the shard of the backend's
 * pid modulo `shards` (16 here; 64 from migration 0141, which makes it again).
 */
export const rowCountsChange = (shards: number) => sql`
  create or replace function row_counts_change() returns trigger language plpgsql as $$
  declare
    delta bigint;
  begin
    if tg_op = 'INSERT' then
      select count(*) into delta from new_rows;
    else
      select -count(*) into delta from old_rows;
    end if;
    if delta <> 0 then
      update row_counts set n = n + delta where table_name = tg_table_name and shard = pg_backend_pid() % ${sql.lit(shards)};
    end if;
    return null;
  end $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table row_counts (
      table_name text not null,
      shard smallint not null,
      n bigint not null default 0,
      primary key (table_name, shard)
    );

    -- one function for inserts and deletes: plpgsql plans a statement when it first runs it, so the
    -- branch naming the transition table the trigger does not have is never planned
    ${rowCountsChange(16)};

    create function row_counts_truncate() returns trigger language plpgsql as $$
    begin
      update row_counts set n = 0 where table_name = tg_table_name;
      return null;
    end $$;

    create table journey_state_counts (
      journey_id text not null,
      status text not null,
      shard smallint not null,
      n bigint not null default 0,
      primary key (journey_id, status, shard)
    );

    create function journey_state_counts_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into journey_state_counts as c (journey_id, status, shard, n)
          select journey_id, status, pg_backend_pid() % 8, count(*) from new_rows group by journey_id, status order by journey_id, status
          on conflict (journey_id, status, shard) do update set n = c.n + excluded.n;
      else
        insert into journey_state_counts as c (journey_id, status, shard, n)
          select journey_id, status, pg_backend_pid() % 8, -count(*) from old_rows group by journey_id, status order by journey_id, status
          on conflict (journey_id, status, shard) do update set n = c.n + excluded.n;
      end if;
      return null;
    end $$;

    create function journey_state_counts_update() returns trigger language plpgsql as $$
    begin
      insert into journey_state_counts as c (journey_id, status, shard, n)
        select j, s, pg_backend_pid() % 8, d from (values (old.journey_id, old.status, -1), (new.journey_id, new.status, 1)) v (j, s, d) order by j, s
        on conflict (journey_id, status, shard) do update set n = c.n + excluded.n;
      return null;
    end $$;

    create function journey_state_counts_truncate() returns trigger language plpgsql as $$
    begin
      delete from journey_state_counts;
      return null;
    end $$;

    create trigger journey_state_counts_insert after insert on journey_states
      referencing new table as new_rows for each statement execute function journey_state_counts_change();
    create trigger journey_state_counts_delete after delete on journey_states
      referencing old table as old_rows for each statement execute function journey_state_counts_change();
    create trigger journey_state_counts_update after update of status, journey_id on journey_states
      for each row when (old.status is distinct from new.status or old.journey_id is distinct from new.journey_id)
      execute function journey_state_counts_update();
    create trigger journey_state_counts_truncate after truncate on journey_states
      for each statement execute function journey_state_counts_truncate();

    lock table journey_states in share row exclusive mode;
    insert into journey_state_counts (journey_id, status, shard, n)
      select journey_id, status, 0, count(*) from journey_states group by journey_id, status;
  `.execute(db);
  for (const table of COUNTED_TABLES) {
    await sql`
      lock table ${sql.table(table)} in share row exclusive mode;
      insert into row_counts (table_name, shard, n)
        select ${sql.lit(table)}, shard, case when shard = 0 then (select count(*) from ${sql.table(table)}) else 0 end from generate_series(0, 15) shard;
      create trigger ${sql.id(`${table}_row_counts_insert`)} after insert on ${sql.table(table)}
        referencing new table as new_rows for each statement execute function row_counts_change();
      create trigger ${sql.id(`${table}_row_counts_delete`)} after delete on ${sql.table(table)}
        referencing old table as old_rows for each statement execute function row_counts_change();
      create trigger ${sql.id(`${table}_row_counts_truncate`)} after truncate on ${sql.table(table)}
        for each statement execute function row_counts_truncate();
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of COUNTED_TABLES) {
    await sql`
      drop trigger if exists ${sql.id(`${table}_row_counts_insert`)} on ${sql.table(table)};
      drop trigger if exists ${sql.id(`${table}_row_counts_delete`)} on ${sql.table(table)};
      drop trigger if exists ${sql.id(`${table}_row_counts_truncate`)} on ${sql.table(table)};
    `.execute(db);
  }
  await sql`
    drop trigger if exists journey_state_counts_insert on journey_states;
    drop trigger if exists journey_state_counts_delete on journey_states;
    drop trigger if exists journey_state_counts_update on journey_states;
    drop trigger if exists journey_state_counts_truncate on journey_states;
    drop table if exists journey_state_counts;
    drop table if exists row_counts;
    drop function if exists row_counts_change, row_counts_truncate;
    drop function if exists journey_state_counts_change, journey_state_counts_update, journey_state_counts_truncate;
  `.execute(db);
}
