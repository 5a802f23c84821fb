import { sql } from 'kysely';
import type { Db } from '../db/database';

/**
 * Sets a contact's membership of lists keyed by `lists.key` (true = subscribed) in one
 * statement; a key seen for the first time creates its list (name = key).
 */
export async function setMemberships(db: Db, contactId: string, memberships: Record<string, boolean>): Promise<void> {
  const entries = Object.entries(memberships);
  if (entries.length === 0) return;
  const keys = entries.map(([key]) => key);
  const values = entries.map(([, subscribed]) => subscribed);
  const run = () =>
    sql<{ listId: string }>`
      with input as (
        select * from unnest(${keys}::text[], ${values}::boolean[]) as t(key, subscribed)
      ), created as (
        insert into lists (key, name) select key, key from input on conflict (key) do nothing returning id, key
      ), resolved as (
        select id, key from created
        union all
        select l.id, l.key from lists l join input i on i.key = l.key
      )
      insert into list_memberships (list_id, contact_id, subscribed)
      select r.id, ${contactId}::uuid, i.subscribed from resolved r join input i on i.key = r.key
      on conflict (list_id, contact_id) do update set subscribed = excluded.subscribed, updated_at = now()
      returning list_id`.execute(db);
  const first = await run();
  // a list created by a concurrent request in the same instant is invisible to this statement's
  // snapshot; the second attempt sees it committed
  if (first.rows.length < entries.length) await run();
}
