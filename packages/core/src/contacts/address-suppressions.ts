import { sql, type Expression } from 'kysely';
import type { Db } from '../db/database';
import type { AddressSuppressionsTable, ContactRow } from '../db/schema';
import { contactPreferenceRows } from './contact';

export type AddressSuppressionReason = AddressSuppressionsTable['reason'];

/** The reasons that stop every email (bounces, complaints, an operator's suppression); `unsubscribed` spares required categories. */
export const SUPPRESSING_REASONS: readonly AddressSuppressionReason[] = ['bounced', 'complained', 'manual'];

/**
 * The key of an address-level suppression: SHA-256 (hex) of the normalised address, computed in
 * SQL so the send gate's own statement and every writer hash alike. Unkeyed on purpose
 * (docs/email.md, "Suppression outlives the contact"): a key derived from AUTH_SECRET would drop
 * every kept objection the day the secret is rotated, and the gate must answer inside statements
 * that know the address only as a column.
 */
export function addressHash(address: Expression<string>) {
  return sql<string>`encode(sha256(convert_to(lower(btrim(${address})), 'UTF8')), 'hex')`;
}

/** Is `address` kept suppressed for one of `reasons`? A select expression for the gate's statements. */
export function addressKept(address: Expression<string>, reasons: readonly AddressSuppressionReason[]) {
  return sql<boolean>`exists (select 1 from address_suppressions where address_hash = ${addressHash(address)} and reason = any(${reasons}::text[]))`;
}

/**
 * Deletes the preference rows a contact's delete or erasure removes, keeping what they said about
 * the address (a bounce or complaint suppression, a global unsubscribe) as address-level entries,
 * in one statement: honouring an objection is the reason to keep it, and the hash keeps no
 * personal data. The rows that go are the contact's (contactPreferenceRows, the rule its admin view
 * and edits use too): its address as user id too, under which the sends of its email-only events,
 * their unsubscribe tokens and their bounces wrote, unless another contact holds that address.
 */
export async function deletePreferencesKeepingSuppression(db: Db, contact: Pick<ContactRow, 'id' | 'externalId' | 'email'>): Promise<void> {
  await sql`
    with gone as (
      delete from email_preferences where ${contactPreferenceRows(contact)}
      returning email, suppressed, suppression_reason, suppressed_at, unsubscribed_all, updated_at
    )
    insert into address_suppressions (address_hash, reason, suppressed_at)
    select ${addressHash(sql.ref('email'))},
           case when suppression_reason in ('complained', 'manual') then suppression_reason else 'bounced' end,
           coalesce(suppressed_at, updated_at)
      from gone where suppressed
    union all
    select ${addressHash(sql.ref('email'))}, 'unsubscribed', updated_at from gone where unsubscribed_all
    on conflict do nothing
  `.execute(db);
}

/**
 * Keeps a bounce or complaint of an address as its hash alone: what a late notification about an
 * erased recipient's send records (process-notification.ts), so honouring it writes the address
 * back nowhere in clear. A bounce suppresses at once here: with no preference row there is no
 * count to reach a threshold with, and a permanent bounce after an erasure has nobody to wait for.
 */
export async function keepAddressSuppression(db: Db, email: string, reason: 'bounced' | 'complained', at: Date): Promise<void> {
  await db
    .insertInto('addressSuppressions')
    .values({ addressHash: addressHash(sql.val(email)), reason, suppressedAt: at })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Lifts an address's kept suppression of these reasons: a resubscribe (`unsubscribed`), an operator's un-suppress (the rest). */
export async function liftAddressSuppressions(db: Db, email: string, reasons: readonly AddressSuppressionReason[]): Promise<void> {
  await db
    .deleteFrom('addressSuppressions')
    .where('addressHash', '=', addressHash(sql.val(email)))
    .where('reason', 'in', [...reasons])
    .execute();
}

/** The kept suppressions of an address (explain, the preference center). */
export async function listAddressSuppressions(db: Db, email: string): Promise<{ reason: AddressSuppressionReason; suppressedAt: Date }[]> {
  return db
    .selectFrom('addressSuppressions')
    .select(['reason', 'suppressedAt'])
    .where('addressHash', '=', addressHash(sql.val(email)))
    .orderBy('suppressedAt')
    .execute();
}
