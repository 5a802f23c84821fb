import type { Db } from '../db/database';

export type UnsubscribeSource = 'unsubscribe_page' | 'one_click' | 'preference_center' | 'admin';

/**
 * Unsubscribing emits the outbound `contact.unsubscribed` event. It is recorded here;
 * a delivery mechanism reads undelivered rows later. Suppression imports never call this.
 */
export async function recordContactUnsubscribed(
  db: Db,
  input: { externalId: string | null; email: string; category: string | null; source: UnsubscribeSource },
): Promise<void> {
  await db
    .insertInto('outboundEvents')
    .values({
      event: 'contact.unsubscribed',
      payload: JSON.stringify({
        externalId: input.externalId,
        email: input.email,
        category: input.category,
        source: input.source,
        occurredAt: new Date().toISOString(),
      }),
    })
    .execute();
}
