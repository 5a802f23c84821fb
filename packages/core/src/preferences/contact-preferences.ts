import { sql } from 'kysely';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { findContactPreferences, getContact, toContactPreferences, type ContactPreferences } from '../contacts/contact';
import type { Db } from '../db/database';
import { liftAddressSuppressions, SUPPRESSING_REASONS } from '../contacts/address-suppressions';
import { badRequest, notFound } from '../errors/app-error';
import { ensurePreferenceRow } from './preference-rows';
import { recordContactUnsubscribed } from './outbound-events';

export const PREFERENCES_NOT_FOUND = 'Preferences not found';
export const CONTACT_WITHOUT_EMAIL = 'Contact has no email';

/**
 * GET /v1/admin/contacts/{contactId}/preferences: the contact's stored row; 404 when the contact or
 * its row is missing (the API contract). A contact with no row yet gets the defaults at every send
 * (subscribed to everything, not suppressed): readers such as the studio show those on a 404.
 */
export async function getContactPreferences(db: Db, contactId: string): Promise<ContactPreferences> {
  const contact = await getContact(db, contactId);
  const row = await findContactPreferences(db, contact);
  if (row === undefined) throw notFound(PREFERENCES_NOT_FOUND);
  return toContactPreferences(row);
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

/** PUT …/preferences: upsert of the contact's own row; 400 when the contact has no email, names an unknown category or turns off a required one. */
export async function updateContactPreferences(
  db: Db,
  categories: PreferenceCategories,
  contactId: string,
  update: PreferencesUpdate,
): Promise<ContactPreferences> {
  assertKnownCategories(categories, Object.keys(update.categories ?? {}));
  assertNotTurningOffRequired(categories, update);
  const contact = await getContact(db, contactId);
  if (contact.email === null || contact.email.trim() === '') throw badRequest(CONTACT_WITHOUT_EMAIL);
  const email = contact.email;
  return db.transaction().execute(async (trx) => {
    const existing = (await findContactPreferences(trx, contact)) ?? (await ensurePreferenceRow(trx, { email, userId: contact.externalId }));
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
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
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
    return toContactPreferences(updated);
  });
}
