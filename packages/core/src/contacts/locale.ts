import { sql } from 'kysely';
import { canonicalLocale } from '@waymark/email/message-catalog';
import type { Db } from '../db/database';

/** The contact property that holds a recipient's language, a BCP 47 tag such as fr-CA (docs/email.md, "Languages"). */
export const LOCALE_PROPERTY = 'locale';

/** The 400 message for a `locale` property that is not a BCP 47 tag, or undefined (null removes it, so it passes). */
export function localeProblem(properties: Record<string, unknown> | undefined, path: string): string | undefined {
  const value = properties?.[LOCALE_PROPERTY];
  if (value === undefined || value === null || canonicalLocale(value) !== undefined) return undefined;
  return `${path}.${LOCALE_PROPERTY} must be a BCP 47 language tag such as fr or fr-CA, got ${JSON.stringify(value)}`;
}

/** A contact's `locale` property when it holds one (the send path resolves it against the template's catalog). */
export function propertiesLocale(properties: Record<string, unknown> | null | undefined): string | undefined {
  const value = properties?.[LOCALE_PROPERTY];
  return typeof value === 'string' && canonicalLocale(value) !== undefined ? value : undefined;
}

/**
 * The recipient's locale for a send that names no contact row: the contact found by external id,
 * else by address (an email-only contact, or one a transactional send reaches by address); undefined
 * when there is none or it has no locale, which renders the template's default.
 */
export async function contactLocale(db: Db, recipient: { userId?: string | undefined; email: string }): Promise<string | undefined> {
  const result = await sql<{ locale: string | null }>`
    select properties->>${LOCALE_PROPERTY} as locale from contacts
    where ${recipient.userId === undefined ? sql`false` : sql`external_id = ${recipient.userId}`} or lower(email) = lower(${recipient.email})
    order by (external_id is not distinct from ${recipient.userId ?? null}) desc, last_seen_at desc limit 1`.execute(db);
  return propertiesLocale({ [LOCALE_PROPERTY]: result.rows[0]?.locale });
}
