import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database';
import { quietOutboundEvents } from '../outbox/outbox';
import { ensurePreferenceRow } from './preference-rows';

export const suppressionReasons = ['unsubscribed', 'bounced', 'complained'] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

export const suppressionImportRow = z.object({
  email: z.email(),
  reason: z.enum(suppressionReasons).default('unsubscribed'),
  externalId: z.string().min(1).optional(),
});
export type SuppressionImportRow = z.infer<typeof suppressionImportRow>;

export interface SuppressionImportResult {
  total: number;
  /** rows that changed a preference row (created or updated) */
  applied: number;
  /** rows whose address already carried that suppression: nothing written */
  unchanged: number;
  /** rows that could not be applied */
  failed: number;
  errors: { row: number; error: string }[];
}

/**
 * Suppression import (docs/email.md, Suppression import). Idempotent (a re-run changes nothing and never inflates bounce
 * counts), quiet (no contact.unsubscribed outbound events) and independent of contacts (a row is
 * written even when no contact exists). Each row is validated and applied on its own, so one bad
 * row is reported (by index) without sinking the batch.
 *   unsubscribed → unsubscribedAll
 *   bounced      → suppressed (reason bounced), bounce recorded once: bounceCount ≥ 1
 *   complained   → suppressed (reason complained), complainedAt
 */
export async function importSuppressions(db: Db, rows: readonly unknown[]): Promise<SuppressionImportResult> {
  const result: SuppressionImportResult = { total: rows.length, applied: 0, unchanged: 0, failed: 0, errors: [] };
  for (const [index, raw] of rows.entries()) {
    const parsed = suppressionImportRow.safeParse(raw);
    if (!parsed.success) {
      result.failed += 1;
      result.errors.push({ row: index, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'row'}: ${issue.message}`).join('; ') });
      continue;
    }
    try {
      if (await applyRow(db, parsed.data)) result.applied += 1;
      else result.unchanged += 1;
    } catch (error) {
      result.failed += 1;
      result.errors.push({ row: index, error: (error as Error).message });
    }
  }
  return result;
}

async function applyRow(db: Db, row: SuppressionImportRow): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await quietOutboundEvents(trx);
    const existing = await ensurePreferenceRow(trx, { email: row.email, userId: row.externalId ?? null });
    const now = new Date();
    switch (row.reason) {
      case 'unsubscribed': {
        if (existing.unsubscribedAll) return false;
        await trx.updateTable('emailPreferences').set({ unsubscribedAll: true, updatedAt: now }).where('id', '=', existing.id).execute();
        return true;
      }
      case 'bounced': {
        if (existing.suppressed && existing.bounceCount >= 1) return false;
        await trx
          .updateTable('emailPreferences')
          .set({
            suppressed: true,
            suppressedAt: sql<Date>`coalesce(suppressed_at, ${now})`,
            suppressionReason: sql<string>`coalesce(suppression_reason, 'bounced')`,
            bounceCount: sql<number>`greatest(bounce_count, 1)`,
            lastBounceAt: sql<Date>`coalesce(last_bounce_at, ${now})`,
            updatedAt: now,
          })
          .where('id', '=', existing.id)
          .execute();
        return true;
      }
      case 'complained': {
        if (existing.suppressed && existing.complainedAt !== null) return false;
        await trx
          .updateTable('emailPreferences')
          .set({
            suppressed: true,
            suppressedAt: sql<Date>`coalesce(suppressed_at, ${now})`,
            suppressionReason: 'complained',
            complainedAt: sql<Date>`coalesce(complained_at, ${now})`,
            updatedAt: now,
          })
          .where('id', '=', existing.id)
          .execute();
        return true;
      }
    }
  });
}
