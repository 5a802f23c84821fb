import { sql } from 'kysely';
import type { Db } from '../db/database';

export type SendBlockReason = 'unsubscribed_all' | 'suppressed' | 'category_unsubscribed';

export interface SendGateResult {
  allowed: boolean;
  reason?: SendBlockReason;
}

/**
 * The send-time gate aggregates *every* preference row for an address (rows may exist
 * before their contact, e.g. from a suppression import, and under different user ids).
 * Used by the journey entry guard and by every send.
 */
export async function checkSendGate(db: Db, email: string, category: string): Promise<SendGateResult> {
  const row = await db
    .selectFrom('emailPreferences')
    .select([
      sql<boolean>`coalesce(bool_or(unsubscribed_all), false)`.as('unsubscribedAll'),
      sql<boolean>`coalesce(bool_or(suppressed), false)`.as('suppressed'),
      sql<boolean>`coalesce(bool_or((categories ->> ${category})::boolean = false), false)`.as('categoryOff'),
    ])
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();
  if (row.suppressed) return { allowed: false, reason: 'suppressed' };
  if (row.unsubscribedAll) return { allowed: false, reason: 'unsubscribed_all' };
  if (row.categoryOff) return { allowed: false, reason: 'category_unsubscribed' };
  return { allowed: true };
}
