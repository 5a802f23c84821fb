import { sql, type Kysely } from 'kysely';

/**
 * Goals, holdouts and lift (docs/journeys.md, "Goals, holdouts and lift").
 *
 * `journey_states` gains the person's arm (`holdout`: null for a journey with neither a goal nor a
 * holdout, which counts nothing) and the conversion (`converted_at`, `conversion_value`, the
 * converting event's id), written by the statement that stores the goal event.
 *
 * Counters are kept as entries, moves, sends, opens and conversions happen, by triggers, so
 * `GET /v1/admin/journeys/{id}/outcomes` sums a few rows per day whatever the number of
 * enrollments. Rows are keyed by the entry's day (UTC), so a conversion counts on the day its
 * person entered, the day its `enrolled` counted, and a date range compares like with like; and
 * by a shard of the writing backend (as `filter_counts`, 0132), so concurrent entries of one
 * journey do not queue on one counter row.
 * - `journey_outcome_counts`: per arm, people enrolled, converted and the sum of their values.
 * - `journey_step_counts`: per arm and node, people who moved into it (a log row whose node
 *   differs from the one before), emails sent there, sends first opened and clicked by a person
 *   (0075) and people who converted after reaching it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table journey_states
      add column holdout boolean,
      add column converted_at timestamptz,
      add column conversion_value numeric,
      add column conversion_event_id uuid;

    create table journey_outcome_counts (
      journey_id text not null,
      journey_version text not null,
      holdout boolean not null,
      day date not null,
      shard smallint not null,
      enrolled bigint not null default 0,
      converted bigint not null default 0,
      value numeric not null default 0,
      primary key (journey_id, day, journey_version, holdout, shard)
    );

    create table journey_step_counts (
      journey_id text not null,
      journey_version text not null,
      holdout boolean not null,
      day date not null,
      node_id text not null,
      shard smallint not null,
      reached bigint not null default 0,
      sent bigint not null default 0,
      human_opened bigint not null default 0,
      human_clicked bigint not null default 0,
      converted bigint not null default 0,
      primary key (journey_id, day, journey_version, holdout, node_id, shard)
    );

    create function journey_outcome_entered() returns trigger language plpgsql as $$
    begin
      insert into journey_outcome_counts as c (journey_id, journey_version, holdout, day, shard, enrolled)
        values (new.journey_id, coalesce(new.journey_version, ''), new.holdout, (new.created_at at time zone 'UTC')::date, pg_backend_pid() % 8, 1)
        on conflict (journey_id, day, journey_version, holdout, shard) do update set enrolled = c.enrolled + 1;
      return null;
    end $$;
    create trigger journey_outcome_entered after insert on journey_states
      for each row when (new.holdout is not null) execute function journey_outcome_entered();

    create function journey_outcome_converted() returns trigger language plpgsql as $$
    declare
      entry_day date := (new.created_at at time zone 'UTC')::date;
    begin
      insert into journey_outcome_counts as c (journey_id, journey_version, holdout, day, shard, converted, value)
        values (new.journey_id, coalesce(new.journey_version, ''), new.holdout, entry_day, pg_backend_pid() % 8, 1, coalesce(new.conversion_value, 0))
        on conflict (journey_id, day, journey_version, holdout, shard) do update set converted = c.converted + 1, value = c.value + excluded.value;
      insert into journey_step_counts as c (journey_id, journey_version, holdout, day, node_id, shard, converted)
        select new.journey_id, coalesce(new.journey_version, ''), new.holdout, entry_day, reached.node_id, pg_backend_pid() % 8, 1
        from (select distinct l.to_node_id as node_id from journey_logs l
              where l.journey_state_id = new.id and l.from_node_id is distinct from l.to_node_id) reached
        order by reached.node_id
        on conflict (journey_id, day, journey_version, holdout, node_id, shard) do update set converted = c.converted + 1;
      return null;
    end $$;
    create trigger journey_outcome_converted after update of converted_at on journey_states
      for each row when (old.converted_at is null and new.converted_at is not null and new.holdout is not null)
      execute function journey_outcome_converted();

    create function journey_step_logged() returns trigger language plpgsql as $$
    begin
      insert into journey_step_counts as c (journey_id, journey_version, holdout, day, node_id, shard, reached, sent)
        select s.journey_id, coalesce(s.journey_version, ''), s.holdout, (s.created_at at time zone 'UTC')::date, new.to_node_id, pg_backend_pid() % 8,
               case when new.from_node_id is distinct from new.to_node_id then 1 else 0 end,
               case when new.action = 'email_sent' then 1 else 0 end
        from journey_states s where s.id = new.journey_state_id and s.holdout is not null
        on conflict (journey_id, day, journey_version, holdout, node_id, shard) do update
          set reached = c.reached + excluded.reached, sent = c.sent + excluded.sent;
      return null;
    end $$;
    create trigger journey_step_logged after insert on journey_logs
      for each row when (new.from_node_id is distinct from new.to_node_id or new.action = 'email_sent')
      execute function journey_step_logged();

    create function journey_step_engaged() returns trigger language plpgsql as $$
    begin
      insert into journey_step_counts as c (journey_id, journey_version, holdout, day, node_id, shard, human_opened, human_clicked)
        select s.journey_id, coalesce(s.journey_version, ''), s.holdout, (s.created_at at time zone 'UTC')::date, l.to_node_id, pg_backend_pid() % 8,
               case when old.human_opened_at is null and new.human_opened_at is not null then 1 else 0 end,
               case when old.human_clicked_at is null and new.human_clicked_at is not null then 1 else 0 end
        from journey_states s
        join lateral (select to_node_id from journey_logs
                      where journey_state_id = s.id and action = 'email_sent' and detail ->> 'emailSendId' = new.id::text limit 1) l on true
        where s.id = new.journey_state_id and s.holdout is not null
        on conflict (journey_id, day, journey_version, holdout, node_id, shard) do update
          set human_opened = c.human_opened + excluded.human_opened, human_clicked = c.human_clicked + excluded.human_clicked;
      return null;
    end $$;
    create trigger journey_step_engaged after update of human_opened_at, human_clicked_at on email_sends
      for each row when (new.journey_state_id is not null and (
        (old.human_opened_at is null and new.human_opened_at is not null) or (old.human_clicked_at is null and new.human_clicked_at is not null)))
      execute function journey_step_engaged();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists journey_step_engaged on email_sends;
    drop function if exists journey_step_engaged;
    drop trigger if exists journey_step_logged on journey_logs;
    drop function if exists journey_step_logged;
    drop trigger if exists journey_outcome_converted on journey_states;
    drop function if exists journey_outcome_converted;
    drop trigger if exists journey_outcome_entered on journey_states;
    drop function if exists journey_outcome_entered;
    drop table if exists journey_step_counts;
    drop table if exists journey_outcome_counts;
    alter table journey_states drop column if exists holdout, drop column if exists converted_at,
      drop column if exists conversion_value, drop column if exists conversion_event_id;
  `.execute(db);
}
