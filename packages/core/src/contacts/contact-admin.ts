import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { conflict, notFound } from '../errors/app-error';
import { CONTACT_NOT_FOUND, getContact, toContact, type Contact } from './contact';
import { deepMergeProperties } from './deep-merge';
import { checkContactProperties } from './time-zone';
import { paginate } from '../db/paginate';
import { isUniqueViolation } from '../db/pg-errors';

export const DUPLICATE_EXTERNAL_ID = 'Contact with this externalId already exists';

/** `%` and `_` in a search term are literal characters, not wildcards. */
export function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export interface ListContactsQuery {
  limit: number;
  offset: number;
  search?: string | undefined;
}

export async function listContacts(db: Db, query: ListContactsQuery): Promise<{ contacts: Contact[]; total: number }> {
  let base = db.selectFrom('contacts');
  if (query.search !== undefined && query.search !== '') {
    const pattern = likePattern(query.search);
    // lower(...) like matches the trigram indexes of migration 0001
    base = base.where((eb) => eb.or([eb(sql`lower(email)`, 'like', pattern), eb(sql`lower(external_id)`, 'like', pattern)]));
  }
  // newest lastSeenAt first: last_seen_minute is its indexed prefix (migration 0130), so the page
  // reads the newest minutes from the index and sorts only their rows
  const ordered = base.selectAll().orderBy('lastSeenMinute', 'desc').orderBy('lastSeenAt', 'desc').orderBy('id', 'desc');
  const { rows, total } = await paginate(ordered, base, query);
  return { contacts: rows.map(toContact), total };
}

export interface CreateContactInput {
  externalId: string;
  email?: string | undefined;
  properties?: JsonObject | undefined;
}

export async function createContact(db: Db, input: CreateContactInput): Promise<Contact> {
  checkContactProperties(input.properties, 'properties');
  try {
    const row = await db
      .insertInto('contacts')
      .values({ externalId: input.externalId, email: input.email ?? null, properties: JSON.stringify(input.properties ?? {}) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toContact(row);
  } catch (error) {
    if (isUniqueViolation(error, 'contacts_external_id_key')) throw conflict(DUPLICATE_EXTERNAL_ID);
    throw error;
  }
}

export interface UpdateContactInput {
  email?: string | undefined;
  properties?: JsonObject | undefined;
}

/** Email replaces; properties deep-merge with `null` removing a key (see deep-merge.ts). */
export async function updateContact(db: Db, idOrExternalId: string, input: UpdateContactInput): Promise<Contact> {
  checkContactProperties(input.properties, 'properties');
  return db.transaction().execute(async (trx) => {
    const found = await getContact(trx, idOrExternalId);
    // lock the row so two concurrent PATCHes merge in turn instead of losing one another's keys
    const current = await trx.selectFrom('contacts').selectAll().where('id', '=', found.id).forUpdate().executeTakeFirst();
    if (current === undefined) throw notFound(CONTACT_NOT_FOUND);
    const properties = input.properties === undefined ? current.properties : deepMergeProperties(current.properties, input.properties);
    const row = await trx
      .updateTable('contacts')
      .set({ email: input.email ?? current.email, properties: JSON.stringify(properties), updatedAt: new Date() })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toContact(row);
  });
}
