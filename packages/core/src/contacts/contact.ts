import { sql } from 'kysely';
import { isUuid } from '../db/ids';
import type { Db } from '../db/database';
import type { ContactRow, JsonObject } from '../db/schema';
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

/**
 * The contacts a journey run's or event's user id names: the one keyed by it as external id, else
 * the email-only contact whose address it is (emailOnlyUserId). Order by `(external_id is null)` to
 * take the keyed one first. Never a contact's Waymark id: a product's user ids may be UUIDs too.
 */
export function namedByUserId(userId: string) {
  return sql<boolean>`(external_id = ${userId} or (external_id is null and lower(email) = lower(${userId})))`;
}

/** The id of the contact a user id names (namedByUserId), if there is one. */
export async function contactIdOfUser(db: Db, userId: string): Promise<string | undefined> {
  const result = await sql<{ id: string }>`select id from contacts where ${namedByUserId(userId)} order by (external_id is null) limit 1`.execute(db);
  return result.rows[0]?.id;
}

export async function getContact(db: Db, idOrExternalId: string): Promise<ContactRow> {
  const row = await findContact(db, idOrExternalId);
  if (row === undefined) throw notFound(CONTACT_NOT_FOUND);
  return row;
}

/**
 * Whose preference rows: a contact with an external id (`userId`), or an email-only contact
 * (`emailOnly`: the user id its events carry, its lower-cased address).
 */
export type PreferenceOwner = { userId: string } | { emailOnly: string };

export function preferenceOwnerOf(contact: Pick<ContactRow, 'externalId' | 'email'>): PreferenceOwner | undefined {
  if (contact.externalId !== null) return { userId: contact.externalId };
  if (contact.email !== null && contact.email.trim() !== '') return { emailOnly: emailOnlyUserId(contact.email) };
  return undefined;
}

/**
 * The user id an email-only contact's rows are keyed by: its address, which is the user id of its
 * events, so of its sends, their unsubscribe tokens and their bounces. Null when a contact's external
 * id is that very string: a user id names that contact first (deliver-journey-email.ts), so such
 * rows are its own, and the email-only contact is left the address's row with no user id.
 */
function emailOnlyRowUserId(emailOnly: string) {
  return sql<string | null>`(select ${emailOnly}::text where not exists (select 1 from contacts where external_id = ${emailOnly}))`;
}

/**
 * The rows a contact's keys name (contactPreferenceRows adds those of the user ids it owns): those keyed by its external id; for an
 * email-only contact, the address's row with no user id and the row keyed by its user id
 * (emailOnlyRowUserId). Rows under other user ids for the same address are other contacts' (the
 * send gate still counts them all).
 */
function ownPreferenceRows(owner: PreferenceOwner) {
  return 'userId' in owner
    ? sql<boolean>`user_id = ${owner.userId}`
    : sql<boolean>`(lower(email) = ${owner.emailOnly} and (user_id is null or user_id = ${emailOnlyRowUserId(owner.emailOnly)}))`;
}

/** The user id of the row created for a contact that has none yet: the one its sends write to, so they share it. */
export function newPreferenceRowUserId(owner: PreferenceOwner) {
  return 'userId' in owner ? sql<string | null>`${owner.userId}::text` : emailOnlyRowUserId(owner.emailOnly);
}

/** The address as user id while no contact but `contactId` holds it, as its address or its external id. */
function addressHeldOnlyBy(contactId: string, address: string) {
  return sql<string | null>`(select ${address}::text
    where not exists (select 1 from contacts where id <> ${contactId} and (lower(email) = ${address} or external_id = ${address})))`;
}

/**
 * The one rule for which user ids a contact's rows are keyed by, those its delete and erasure remove
 * the rows of (preference rows; events too for an erasure), as a text[] for `user_id = any(…)`: its
 * external id, and its lower-cased address (emailOnlyUserId), the user id of the email-only events
 * its upsert took (upsert-contact.ts: the most recently seen contact of the address takes them,
 * whether or not it has an external id), so of their sends, unsubscribe tokens and bounces. An
 * email-only contact is keyed by that user id, so owns it unless a contact's external id is that
 * very string (emailOnlyRowUserId); a contact with an external id owns it only while no other
 * contact holds the address (addressHeldOnlyBy): the rows are then that other's.
 */
export function ownUserIds(contact: Pick<ContactRow, 'id' | 'externalId' | 'email'>) {
  const address = contact.email === null || contact.email.trim() === '' ? undefined : emailOnlyUserId(contact.email);
  const addressUserId =
    address === undefined ? sql<null>`null` : contact.externalId === null ? emailOnlyRowUserId(address) : addressHeldOnlyBy(contact.id, address);
  return sql<string[]>`array_remove(array[${contact.externalId}::text, ${addressUserId}], null)`;
}

/**
 * The one rule for a contact's preference rows, as its admin view and edits and its delete and
 * erasure all take them: its own rows (ownPreferenceRows) and every row keyed by a user id it owns
 * (ownUserIds: for a contact with an external id, its address while no other contact holds it,
 * under which its address's email-only events' sends, unsubscribes and bounces wrote).
 */
export function contactPreferenceRows(contact: Pick<ContactRow, 'id' | 'externalId' | 'email'>) {
  const owner = preferenceOwnerOf(contact);
  return sql<boolean>`(${owner === undefined ? sql`false` : ownPreferenceRows(owner)} or user_id = any(${ownUserIds(contact)}))`;
}
