import { sql, type Kysely } from 'kysely';

/**
 * Segments (docs/segments.md): saved audiences. A row keeps only the condition tree; who is in a
 * segment is computed by one query over contacts, events, lists and sends whenever it is read.
 *
 * waymark_try_timestamptz: a property holding an ISO date compares as an instant, as the journey
 * runner compares it; a cast that fails (`2024-02-31`) gives null rather than failing the query.
 * UTC for a date without an offset, as JavaScript's Date.parse reads `2024-02-01`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table segments (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      description text,
      conditions jsonb not null,
      created_by text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index segments_name_key on segments (lower(name));
    create index segments_created_idx on segments (created_at desc, id);
    create function waymark_try_timestamptz(value text) returns timestamptz
      language plpgsql stable set timezone to 'UTC' as $$
      begin
        return value::timestamptz;
      exception when others then
        return null;
      end
    $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function if exists waymark_try_timestamptz(text);
    drop table if exists segments;
  `.execute(db);
}
