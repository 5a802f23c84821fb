import { sql } from 'kysely';
import type { EmailTokenPayload } from '@waymark/email/unsubscribe-token';
import type { Db } from '../db/database';
import { liftAddressSuppressions, listAddressSuppressions, SUPPRESSING_REASONS } from '../contacts/address-suppressions';
import { aggregatePreferences, ensurePreferenceRow, listPreferenceRowsForAddress, type AddressPreferences } from './preference-rows';
import { recordContactUnsubscribed, type UnsubscribeSource } from './outbound-events';

export interface TokenActionResult {
  preferences: AddressPreferences;
  /** false when the preferences already said so (a repeated click changes nothing) */
  changed: boolean;
}

/**
 * What a signed token does (docs/email.md, Unsubscribe and preference pages):
 *   unsubscribe + category → categories.<category> = false
 *   unsubscribe            → unsubscribedAll = true
 *   resubscribe + category → categories.<category> = true and unsubscribedAll = false
 *   resubscribe            → unsubscribedAll = false
 * Unsubscribing writes the token's own row (externalId + email). Resubscribing applies to every
 * row of the address, because the send gate honours any row: the holder of the token proves
 * control of the address. Suppression (bounces, complaints) is never lifted from a page.
 */
export async function applyTokenAction(db: Db, token: EmailTokenPayload, source: UnsubscribeSource): Promise<TokenActionResult> {
  const userId = token.externalId === '' ? null : token.externalId;
  const category = token.category ?? null;
  return db.transaction().execute(async (trx) => {
    const before = await readAddressPreferences(trx, token.email);
    const now = new Date();
    if (token.action === 'unsubscribe') {
      const row = await ensurePreferenceRow(trx, { email: token.email, userId });
      await trx
        .updateTable('emailPreferences')
        .set(
          category === null
            ? { unsubscribedAll: true, updatedAt: now }
            : { categories: sql`categories || jsonb_build_object(${category}::text, false)`, updatedAt: now },
        )
        .where('id', '=', row.id)
        .execute();
    } else {
      await ensurePreferenceRow(trx, { email: token.email, userId });
      await trx
        .updateTable('emailPreferences')
        .set(
          category === null
            ? { unsubscribedAll: false, updatedAt: now }
            : { unsubscribedAll: false, categories: sql`categories || jsonb_build_object(${category}::text, true)`, updatedAt: now },
        )
        .where(sql`lower(email)`, '=', token.email.trim().toLowerCase())
        .execute();
      // a global unsubscribe kept after an earlier contact of this address was deleted: the token's holder takes it back
      await liftAddressSuppressions(trx, token.email, ['unsubscribed']);
    }
    const after = await readAddressPreferences(trx, token.email);
    const wasOff = category === null ? before.unsubscribedAll : before.categories[category] === false;
    const isOff = category === null ? after.unsubscribedAll : after.categories[category] === false;
    const changed = wasOff !== isOff;
    if (token.action === 'unsubscribe' && changed) {
      await recordContactUnsubscribed(trx, { externalId: userId, email: token.email, category, source });
    }
    return { preferences: after, changed };
  });
}

/** What the preference center shows for a token's address: its rows and what was kept of deleted ones, as the send gate reads them. */
export async function readAddressPreferences(db: Db, email: string): Promise<AddressPreferences> {
  const [rows, kept] = await Promise.all([listPreferenceRowsForAddress(db, email), listAddressSuppressions(db, email)]);
  const preferences = aggregatePreferences(rows);
  return {
    ...preferences,
    unsubscribedAll: preferences.unsubscribedAll || kept.some((entry) => entry.reason === 'unsubscribed'),
    suppressed: preferences.suppressed || kept.some((entry) => SUPPRESSING_REASONS.includes(entry.reason)),
  };
}
