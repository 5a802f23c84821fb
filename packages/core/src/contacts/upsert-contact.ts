import { sql } from 'kysely';
import type { Db } from '../db/database';

export interface ContactUpsertInput {
  userId?: string | undefined;
  email?: string | undefined;
  /** merged (shallow) onto the contact's properties; only the data plane's contactProperties */
  properties?: Record<string, unknown> | undefined;
}

export interface UpsertedContact {
  id: string;
  email: string | null;
}

/**
 * SPEC §1 step 4 in one statement: resolve the contact by userId (externalId) or, for
 * email-only events, by address; create it the first time; always move lastSeenAt.
 */
export async function upsertContact(db: Db, input: ContactUpsertInput): Promise<UpsertedContact> {
  const properties = JSON.stringify(input.properties ?? {});
  const email = input.email?.trim() === '' ? undefined : input.email?.trim();
  if (input.userId !== undefined && input.userId !== '') {
    const result = await sql<UpsertedContact>`
      insert into contacts (external_id, email, properties)
      values (${input.userId}, ${email ?? null}, ${properties}::jsonb)
      on conflict (external_id) do update set
        email = coalesce(excluded.email, contacts.email),
        properties = contacts.properties || excluded.properties,
        last_seen_at = now(),
        updated_at = now()
      returning id, email`.execute(db);
    return result.rows[0]!;
  }
  if (email === undefined) throw new Error('A contact needs a userId or an email');
  // email-only: the most recently seen contact with this address wins; else an email-only contact
  const result = await sql<UpsertedContact>`
    with target as (
      select id from contacts where lower(email) = lower(${email}) order by last_seen_at desc limit 1
    ), updated as (
      update contacts c set properties = c.properties || ${properties}::jsonb, last_seen_at = now(), updated_at = now()
      from target where c.id = target.id
      returning c.id, c.email
    ), inserted as (
      insert into contacts (external_id, email, properties)
      select null, ${email}, ${properties}::jsonb where not exists (select 1 from target)
      on conflict (lower(email)) where external_id is null do update set
        properties = contacts.properties || excluded.properties, last_seen_at = now(), updated_at = now()
      returning id, email
    )
    select id, email from updated union all select id, email from inserted`.execute(db);
  return result.rows[0]!;
}
