import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { checkContactProperties } from './time-zone';

/** Every contact is keyed by its external id or, without one, its address. */
export const CONTACT_KEY_REQUIRED = 'One of userId or email is required';

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
 * Ingest step 4 (contact upsert) in one statement: resolve the contact by userId (externalId) or, for
 * email-only events, by address; create it the first time; always move lastSeenAt.
 */
export async function upsertContact(db: Db, input: ContactUpsertInput): Promise<UpsertedContact> {
  checkContactProperties(input.properties, 'properties');
  const email = input.email?.trim() === '' ? undefined : input.email?.trim();
  if (input.userId !== undefined && input.userId !== '') {
    const [contact] = await upsertContactsByExternalId(db, [{ externalId: input.userId, email: email ?? null, properties: input.properties ?? {} }]);
    return contact!;
  }
  if (email === undefined) throw badRequest(CONTACT_KEY_REQUIRED);
  const properties = JSON.stringify(input.properties ?? {});
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

/**
 * Creates an email-only contact when no contact has the address; one that has it is left as it is
 * (a repeated event's contact: ingest-batch.ts). A concurrent creation wins the conflict.
 */
export async function ensureContactByEmail(db: Db, input: { email: string; properties?: Record<string, unknown> | undefined }): Promise<void> {
  const email = input.email.trim();
  await sql`
    insert into contacts (external_id, email, properties)
    select null, ${email}, ${JSON.stringify(input.properties ?? {})}::jsonb
    where not exists (select 1 from contacts where lower(email) = lower(${email}))
    on conflict (lower(email)) where external_id is null do nothing`.execute(db);
}

export interface ExternalIdContact {
  externalId: string;
  /** null keeps the stored address */
  email: string | null;
  properties: Record<string, unknown>;
}

/**
 * Contacts keyed by external id, any number in one statement: created the first time, else the
 * address replaced when one is given, properties merged (shallow), lastSeenAt moved. Rows are
 * written in the given order, so callers that sort them lock rows in the same order.
 */
export async function upsertContactsByExternalId(db: Db, contacts: readonly ExternalIdContact[]): Promise<UpsertedContact[]> {
  if (contacts.length === 0) return [];
  const result = await externalIdUpsert(
    sql`select external_id, email, properties::jsonb
    from unnest(${contacts.map((contact) => contact.externalId)}::text[], ${contacts.map((contact) => contact.email)}::text[],
                ${contacts.map((contact) => JSON.stringify(contact.properties))}::text[]) with ordinality as t(external_id, email, properties, ord)
    order by ord`,
  ).execute(db);
  return result.rows;
}

/**
 * The upsert of upsertContactsByExternalId over `rows` (a select of external_id, email, properties
 * as jsonb), returning id and email: also a part of the ingest store statement (events/ingest-batch.ts).
 */
export function externalIdUpsert(rows: RawBuilder<unknown>): RawBuilder<UpsertedContact> {
  return sql<UpsertedContact>`
    insert into contacts (external_id, email, properties)
    ${rows}
    on conflict (external_id) do update set
      email = coalesce(excluded.email, contacts.email),
      properties = contacts.properties || excluded.properties,
      last_seen_at = now(),
      updated_at = now()
    returning id, email`;
}
