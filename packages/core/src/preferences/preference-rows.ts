import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { EmailPreferencesRow } from '../db/schema';

/**
 * Preference rows are keyed by (lower(email), user_id) with nulls not distinct: a row may exist
 * before its contact (suppression import, bounce of an address-only send) with user_id null.
 */
export interface PreferenceKey {
  email: string;
  /** contact externalId, or null for an address-only row */
  userId: string | null;
}

/** The row for a key, created (all defaults) when missing. Race-free: insert … on conflict. */
export async function ensurePreferenceRow(db: Db, key: PreferenceKey): Promise<EmailPreferencesRow> {
  await sql`
    insert into email_preferences (email, user_id) values (${key.email.trim()}, ${key.userId})
    on conflict (lower(email), user_id) do nothing
  `.execute(db);
  return db
    .selectFrom('emailPreferences')
    .selectAll()
    .where(sql`lower(email)`, '=', key.email.trim().toLowerCase())
    .where(sql<boolean>`user_id is not distinct from ${key.userId}`)
    .executeTakeFirstOrThrow();
}

export async function listPreferenceRowsForAddress(db: Db, email: string): Promise<EmailPreferencesRow[]> {
  return db
    .selectFrom('emailPreferences')
    .selectAll()
    .where(sql`lower(email)`, '=', email.trim().toLowerCase())
    .orderBy('createdAt')
    .execute();
}

/** Every row of an address, aggregated the way the send gate reads them. */
export interface AddressPreferences {
  unsubscribedAll: boolean;
  suppressed: boolean;
  /** category → subscribed (false when any row turned it off) */
  categories: Record<string, boolean>;
}

export function aggregatePreferences(rows: readonly EmailPreferencesRow[]): AddressPreferences {
  const categories: Record<string, boolean> = {};
  for (const row of rows) {
    for (const [name, value] of Object.entries(row.categories ?? {})) {
      categories[name] = (categories[name] ?? true) && value !== false;
    }
  }
  return {
    unsubscribedAll: rows.some((row) => row.unsubscribedAll),
    suppressed: rows.some((row) => row.suppressed),
    categories,
  };
}
