import { sql } from 'kysely';
import { isUuid } from '../db/ids';
import type { Db } from '../db/database';
import type { ContactRow, EmailPreferencesRow, JsonObject } from '../db/schema';
import { notFound } from '../errors/app-error';

export interface Contact {
  id: string;
  externalId: string | null;
  email: string | null;
  properties: JsonObject;
  firstSeenAt: Date;
  lastSeenAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactPreferences {
  id: string;
  userId: string | null;
  email: string;
  unsubscribedAll: boolean;
  suppressed: boolean;
  bounceCount: number;
  categories: Record<string, boolean>;
  suppressedAt: Date | null;
  lastBounceAt: Date | null;
}

export const CONTACT_NOT_FOUND = 'Contact not found';

/** The user id of an email-only event: its lower-cased address, so its contact's sends and preference rows carry it too. */
export function emailOnlyUserId(email: string): string {
  return email.trim().toLowerCase();
}

export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    externalId: row.externalId,
    email: row.email,
    properties: row.properties,
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.lastSeenAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toContactPreferences(row: EmailPreferencesRow): ContactPreferences {
  return {
    id: row.id,
    userId: row.userId,
    email: row.email,
    unsubscribedAll: row.unsubscribedAll,
    suppressed: row.suppressed,
    bounceCount: row.bounceCount,
    categories: row.categories,
    suppressedAt: row.suppressedAt,
    lastBounceAt: row.lastBounceAt,
  };
}

/** `{id}` is the contact UUID or its externalId (an externalId may itself look like a UUID). */
export async function findContact(db: Db, idOrExternalId: string): Promise<ContactRow | undefined> {
  const rows = await db
    .selectFrom('contacts')
    .selectAll()
    .where((eb) =>
      isUuid(idOrExternalId) ? eb.or([eb('id', '=', idOrExternalId), eb('externalId', '=', idOrExternalId)]) : eb('externalId', '=', idOrExternalId),
    )
    .limit(2)
    .execute();
  return rows.find((row) => row.id === idOrExternalId) ?? rows[0];
}

export async function getContact(db: Db, idOrExternalId: string): Promise<ContactRow> {
  const row = await findContact(db, idOrExternalId);
  if (row === undefined) throw notFound(CONTACT_NOT_FOUND);
  return row;
}

/**
 * The contact's own preference row: keyed by its externalId, or by address for an email-only
 * contact. Rows under other user ids for the same address are not this contact's.
 */
export async function findContactPreferences(db: Db, contact: ContactRow): Promise<EmailPreferencesRow | undefined> {
  let query = db.selectFrom('emailPreferences').selectAll();
  if (contact.externalId !== null) {
    query = query.where('userId', '=', contact.externalId);
  } else if (contact.email !== null) {
    query = query.where('userId', 'is', null).where(sql`lower(email)`, '=', contact.email.toLowerCase());
  } else {
    return undefined;
  }
  return query.orderBy('updatedAt', 'desc').limit(1).executeTakeFirst();
}

export async function getContactDetail(db: Db, idOrExternalId: string): Promise<{ contact: Contact; preferences: ContactPreferences | null }> {
  const row = await getContact(db, idOrExternalId);
  const preferences = await findContactPreferences(db, row);
  return { contact: toContact(row), preferences: preferences === undefined ? null : toContactPreferences(preferences) };
}
