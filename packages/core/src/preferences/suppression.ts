import { sql } from 'kysely';
import type { Db } from '../db/database';
import { ensurePreferenceRow } from './preference-rows';

/**
 * Hard bounce of an address (docs/email.md): every preference row of the address counts it, and
 * reaching `threshold` suppresses delivery. With no row yet, one is created for the send's user
 * (or the bare address). The caller guarantees one call per provider notification.
 */
export async function recordHardBounce(
  db: Db,
  input: { email: string; userId: string | null; threshold: number; at?: Date },
): Promise<{ bounceCount: number; suppressed: boolean }> {
  const at = input.at ?? new Date();
  await ensureAnyRow(db, input.email, input.userId);
  const rows = await db
    .updateTable('emailPreferences')
    .set((eb) => ({
      bounceCount: eb('bounceCount', '+', 1),
      lastBounceAt: at,
      suppressed: sql<boolean>`suppressed or bounce_count + 1 >= ${input.threshold}`,
      suppressedAt: sql<Date | null>`case when suppressed then suppressed_at when bounce_count + 1 >= ${input.threshold} then ${at} else null end`,
      suppressionReason: sql<
        string | null
      >`case when suppressed then suppression_reason when bounce_count + 1 >= ${input.threshold} then 'bounced' else suppression_reason end`,
      updatedAt: at,
    }))
    .where(sql`lower(email)`, '=', input.email.trim().toLowerCase())
    .returning(['bounceCount', 'suppressed'])
    .execute();
  return { bounceCount: Math.max(0, ...rows.map((row) => row.bounceCount)), suppressed: rows.some((row) => row.suppressed) };
}

/** A spam complaint suppresses the address at once. */
export async function recordComplaint(db: Db, input: { email: string; userId: string | null; at?: Date }): Promise<void> {
  const at = input.at ?? new Date();
  await ensureAnyRow(db, input.email, input.userId);
  await db
    .updateTable('emailPreferences')
    .set({
      suppressed: true,
      suppressedAt: sql<Date>`coalesce(suppressed_at, ${at})`,
      suppressionReason: 'complained',
      complainedAt: sql<Date>`coalesce(complained_at, ${at})`,
      updatedAt: at,
    })
    .where(sql`lower(email)`, '=', input.email.trim().toLowerCase())
    .execute();
}

async function ensureAnyRow(db: Db, email: string, userId: string | null): Promise<void> {
  const existing = await db
    .selectFrom('emailPreferences')
    .select('id')
    .where(sql`lower(email)`, '=', email.trim().toLowerCase())
    .executeTakeFirst();
  if (existing === undefined) await ensurePreferenceRow(db, { email, userId });
}
