import type { Db } from '../db/database';
import { CONTACT_NOT_FOUND, getContact } from '../contacts/contact';
import { notFound } from '../errors/app-error';
import { setMemberships } from './set-memberships';

/** One list a contact has a membership row for; `subscribed: false` is a remembered opt-out. */
export interface ContactListMembership {
  key: string;
  name: string;
  description: string | null;
  subscribed: boolean;
  updatedAt: Date;
}

async function membershipsOf(db: Db, contactId: string, key?: string): Promise<ContactListMembership[]> {
  let query = db
    .selectFrom('listMemberships')
    .innerJoin('lists', 'lists.id', 'listMemberships.listId')
    .select(['lists.key', 'lists.name', 'lists.description', 'listMemberships.subscribed', 'listMemberships.updatedAt'])
    .where('listMemberships.contactId', '=', contactId);
  if (key !== undefined) query = query.where('lists.key', '=', key);
  return query.orderBy('lists.key').execute();
}

/** The lists of a contact (`{id}`: UUID or externalId), by list key. */
export async function listContactLists(db: Db, idOrExternalId: string): Promise<{ contactId: string; lists: ContactListMembership[] }> {
  const contact = await getContact(db, idOrExternalId);
  return { contactId: contact.id, lists: await membershipsOf(db, contact.id) };
}

/**
 * Sets one membership, exactly as the `lists` field of POST /v1/events does (a key seen for the
 * first time creates its list), so the admin plane and the data plane cannot disagree on it.
 */
export async function setContactList(
  db: Db,
  idOrExternalId: string,
  key: string,
  subscribed: boolean,
): Promise<{ contactId: string; membership: ContactListMembership }> {
  const contact = await getContact(db, idOrExternalId);
  await setMemberships(db, contact.id, { [key]: subscribed });
  const [membership] = await membershipsOf(db, contact.id, key);
  // the row was just written; its absence means the contact was deleted in between
  if (membership === undefined) throw notFound(CONTACT_NOT_FOUND);
  return { contactId: contact.id, membership };
}

/** Removes a membership row altogether (unlike `subscribed: false`, nothing is remembered). */
export async function removeContactList(db: Db, idOrExternalId: string, key: string): Promise<{ contactId: string }> {
  const contact = await getContact(db, idOrExternalId);
  const removed = await db
    .deleteFrom('listMemberships')
    .where('contactId', '=', contact.id)
    .where('listId', '=', (eb) => eb.selectFrom('lists').select('id').where('key', '=', key))
    .executeTakeFirst();
  if (removed.numDeletedRows === 0n) throw notFound('List membership not found');
  return { contactId: contact.id };
}
