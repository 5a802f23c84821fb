import { sql } from 'kysely';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { contactPreferenceRows, getContact, newPreferenceRowUserId, preferenceOwnerOf, toContact, type Contact } from '../contacts/contact';
import type { ContactRow, EmailPreferencesRow } from '../db/schema';
import type { Db } from '../db/database';
import { liftAddressSuppressions, SUPPRESSING_REASONS } from '../contacts/address-suppressions';
import { badRequest, notFound } from '../errors/app-error';
import { recordContactUnsubscribed } from './outbound-events';
import { aggregatePreferences } from './preference-rows';

export const PREFERENCES_NOT_FOUND = 'Preferences not found';
export const CONTACT_WITHOUT_EMAIL = 'Contact has no email';

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

/**
 * The contact's preference rows (contactPreferenceRows) of its current address, the latest updated
 * first: those the send gate reads for its sends. A contact whose address changed may still own a
 * row of its old one, which no send of it reads any more.
 */
async function listContactPreferenceRows(db: Db, contact: ContactRow): Promise<EmailPreferencesRow[]> {
  const address = contact.email?.trim().toLowerCase();
  if (address === undefined || address === '') return [];
  return db
    .selectFrom('emailPreferences')
    .selectAll()
    .where(contactPreferenceRows(contact))
    .where(sql<string>`lower(email)`, '=', address)
    .orderBy('updatedAt', 'desc')
    .orderBy('id')
    .execute();
}

/**
 * The contact's preferences as one answer. Normally one row; an email-only contact may have two:
 * the one its events' sends wrote and its address's row with no user id (from a send without a user
 * id, a suppression import, an admin edit made before the rows were keyed alike). They are shown
 * as the send gate reads them, the strictest winning, so the admin plane never shows a person as
 * subscribed whom a row of theirs still blocks.
 */
function mergeContactPreferences(rows: readonly EmailPreferencesRow[]): ContactPreferences | undefined {
  const [latest, ...others] = rows;
  if (latest === undefined) return undefined;
  if (others.length === 0) return toContactPreferences(latest);
  const suppressedAt = rows.flatMap((row) => (row.suppressed && row.suppressedAt !== null ? [row.suppressedAt.getTime()] : []));
  const lastBounceAt = rows.flatMap((row) => (row.lastBounceAt === null ? [] : [row.lastBounceAt.getTime()]));
  return {
    ...toContactPreferences(latest),
    ...aggregatePreferences(rows),
    bounceCount: Math.max(...rows.map((row) => row.bounceCount)),
    suppressedAt: suppressedAt.length === 0 ? null : new Date(Math.min(...suppressedAt)),
    lastBounceAt: lastBounceAt.length === 0 ? null : new Date(Math.max(...lastBounceAt)),
  };
}

async function findContactPreferences(db: Db, contact: ContactRow): Promise<ContactPreferences | undefined> {
  return mergeContactPreferences(await listContactPreferenceRows(db, contact));
}

export async function getContactDetail(db: Db, idOrExternalId: string): Promise<{ contact: Contact; preferences: ContactPreferences | null }> {
  const row = await getContact(db, idOrExternalId);
  const preferences = await findContactPreferences(db, row);
  return { contact: toContact(row), preferences: preferences ?? null };
}

/**
 * GET /v1/admin/contacts/{contactId}/preferences: the contact's own rows (findContactPreferences);
 * 404 when the contact or its rows are missing (the API contract). A contact with no row yet gets the defaults at every send
 * (subscribed to everything, not suppressed): readers such as the studio show those on a 404.
 */
export async function getContactPreferences(db: Db, contactId: string): Promise<ContactPreferences> {
  const contact = await getContact(db, contactId);
  const preferences = await findContactPreferences(db, contact);
  if (preferences === undefined) throw notFound(PREFERENCES_NOT_FOUND);
  return preferences;
}

export interface PreferencesUpdate {
  unsubscribedAll?: boolean | undefined;
  suppressed?: boolean | undefined;
  /** merged onto the stored categories */
  categories?: Record<string, boolean> | undefined;
}

/** 400 naming every category key the deployment does not declare (journeys/categories.ts). */
export function assertKnownCategories(categories: PreferenceCategories, keys: Iterable<string>): void {
  const unknown = categories.unknown(keys);
  if (unknown.length > 0) {
    const known = categories.all().map((category) => category.key);
    throw badRequest(`Unknown preference category: ${unknown.join(', ')} (known: ${known.join(', ')})`);
  }
}

/**
 * 400 naming every required category `update` turns off: those are emails the person asked for
 * (docs/email.md, "Preference categories"), so the admin plane refuses rather than store a switch
 * the send gate would ignore.
 */
function assertNotTurningOffRequired(categories: PreferenceCategories, update: PreferencesUpdate): void {
  const required = Object.entries(update.categories ?? {})
    .filter(([key, on]) => !on && categories.required(key))
    .map(([key]) => key);
  if (required.length > 0)
    throw badRequest(`Required preference category cannot be turned off: ${required.join(', ')} (emails the person asked for, sent whatever their opt-outs)`);
}

/**
 * PUT …/preferences: upsert of the contact's rows (contactPreferenceRows, the rows its GET shows);
 * 400 when the contact has no email, names an unknown category or turns off a required one. Every
 * own row of the address is set alike, so none of them still blocks a send the operator allowed
 * (the send gate counts them all); a contact with none gets the row its sends would write.
 */
export async function updateContactPreferences(
  db: Db,
  categories: PreferenceCategories,
  contactId: string,
  update: PreferencesUpdate,
): Promise<ContactPreferences> {
  assertKnownCategories(categories, Object.keys(update.categories ?? {}));
  assertNotTurningOffRequired(categories, update);
  const contact = await getContact(db, contactId);
  const owner = preferenceOwnerOf(contact);
  if (contact.email === null || contact.email.trim() === '' || owner === undefined) throw badRequest(CONTACT_WITHOUT_EMAIL);
  const email = contact.email;
  return db.transaction().execute(async (trx) => {
    let rows = await listContactPreferenceRows(trx, contact);
    if (rows.length === 0) {
      // race-free against a concurrent unsubscribe or bounce of the same key: both land on one row
      await sql`
        insert into email_preferences (email, user_id) values (${email.trim()}, ${newPreferenceRowUserId(owner)})
        on conflict (lower(email), user_id) do nothing
      `.execute(trx);
      rows = await listContactPreferenceRows(trx, contact);
    }
    const existing = mergeContactPreferences(rows)!;
    const now = new Date();
    const updated = await trx
      .updateTable('emailPreferences')
      .set({
        updatedAt: now,
        ...(update.unsubscribedAll === undefined ? {} : { unsubscribedAll: update.unsubscribedAll }),
        ...(update.suppressed === undefined
          ? {}
          : update.suppressed
            ? {
                suppressed: true,
                suppressedAt: sql<Date>`coalesce(suppressed_at, ${now})`,
                suppressionReason: sql<string>`coalesce(suppression_reason, 'manual')`,
              }
            : { suppressed: false, suppressedAt: null, suppressionReason: null }),
        ...(update.categories === undefined ? {} : { categories: sql<Record<string, boolean>>`categories || ${JSON.stringify(update.categories)}::jsonb` }),
      })
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .returningAll()
      .execute();
    // an operator lifting it lifts what was kept of an earlier contact of this address too
    if (update.unsubscribedAll === false) await liftAddressSuppressions(trx, email, ['unsubscribed']);
    if (update.suppressed === false) await liftAddressSuppressions(trx, email, SUPPRESSING_REASONS);
    const newlyOff = Object.entries(update.categories ?? {}).filter(([name, value]) => value === false && existing.categories[name] !== false);
    if (update.unsubscribedAll === true && !existing.unsubscribedAll) {
      await recordContactUnsubscribed(trx, { externalId: contact.externalId, email, category: null, source: 'admin' });
    }
    for (const [name] of newlyOff) {
      await recordContactUnsubscribed(trx, { externalId: contact.externalId, email, category: name, source: 'admin' });
    }
    // in the order read, so the answer names the same row as the GET before it
    const byId = new Map(updated.map((row) => [row.id, row]));
    return mergeContactPreferences(rows.flatMap((row) => byId.get(row.id) ?? []))!;
  });
}
