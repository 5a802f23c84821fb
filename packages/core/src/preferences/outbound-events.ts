import type { Db } from '../db/database';
import { recordOutboundEvent } from '../outbox/outbox';

export type UnsubscribeSource = 'unsubscribe_page' | 'one_click' | 'preference_center' | 'admin';

/**
 * Unsubscribing emits the outbound `contact.unsubscribed` event (docs/webhooks.md), in the
 * caller's transaction. Suppression imports never call this: they are quiet by contract.
 */
export async function recordContactUnsubscribed(
  db: Db,
  input: { externalId: string | null; email: string; category: string | null; source: UnsubscribeSource },
): Promise<void> {
  await recordOutboundEvent(db, 'contact.unsubscribed', {
    userId: input.externalId,
    email: input.email,
    category: input.category,
    source: input.source,
  });
}
