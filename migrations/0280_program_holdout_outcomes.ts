import { sql, type Kysely } from 'kysely';

/**
 * The program holdout's measurement (docs/journeys.md, "The program holdout: lifecycle email as a
 * whole"): `GET /v1/admin/delivery-policy/holdout/outcomes` compares, per journey with a goal,
 * people the delivery policy holds out of the journey's category with people who got its emails.
 *
 * - `journey_states.program_holdout`: the person's program arm for the journey's category, written
 *   once by the entry statement (null: the policy holds none of that category out, or the run
 *   started before this column). It is decided at entry, as the journey's own arm is (0190), so a
 *   later change of the policy does not move people already counted.
 * - `program_holdout_counts`: per journey, program arm, entry day (UTC) and backend shard (as
 *   0190's counters), people enrolled, converted and the sum of their values. Counted only for a
 *   run with an arm of its journey (`holdout is not null`: a journey with a goal or a holdout), and
 *   only in one of two arms: held out by the program (whatever the journey's own arm: they got none
 *   of the emails either way), or in neither holdout (they got the emails). A person in the
 *   journey's holdout alone got none of its emails while the program sent them everything else, so
 *   they are neither arm and counted nowhere, never twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table journey_states add column program_holdout boolean;

    create table program_holdout_counts (
      journey_id text not null,
      holdout boolean not null,
      day date not null,
      shard smallint not null,
      enrolled bigint not null default 0,
      converted bigint not null default 0,
      value numeric not null default 0,
      primary key (journey_id, day, holdout, shard)
    );

    create function program_holdout_entered() returns trigger language plpgsql as $$
    begin
      insert into program_holdout_counts as c (journey_id, holdout, day, shard, enrolled)
        values (new.journey_id, new.program_holdout, (new.created_at at time zone 'UTC')::date, pg_backend_pid() % 8, 1)
        on conflict (journey_id, day, holdout, shard) do update set enrolled = c.enrolled + 1;
      return null;
    end $$;
    create trigger program_holdout_entered after insert on journey_states
      for each row when (new.program_holdout is not null and new.holdout is not null and (new.program_holdout or not new.holdout))
      execute function program_holdout_entered();

    create function program_holdout_converted() returns trigger language plpgsql as $$
    begin
      insert into program_holdout_counts as c (journey_id, holdout, day, shard, converted, value)
        values (new.journey_id, new.program_holdout, (new.created_at at time zone 'UTC')::date, pg_backend_pid() % 8, 1, coalesce(new.conversion_value, 0))
        on conflict (journey_id, day, holdout, shard) do update set converted = c.converted + 1, value = c.value + excluded.value;
      return null;
    end $$;
    create trigger program_holdout_converted after update of converted_at on journey_states
      for each row when (old.converted_at is null and new.converted_at is not null
        and new.program_holdout is not null and new.holdout is not null and (new.program_holdout or not new.holdout))
      execute function program_holdout_converted();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger if exists program_holdout_converted on journey_states;
    drop function if exists program_holdout_converted;
    drop trigger if exists program_holdout_entered on journey_states;
    drop function if exists program_holdout_entered;
    drop table if exists program_holdout_counts;
    alter table journey_states drop column if exists program_holdout;
  `.execute(db);
}
