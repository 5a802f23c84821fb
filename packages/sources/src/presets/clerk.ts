import { z } from 'zod';
import { defineSource } from '../define-source';
import { asEmail, asRecord, asString, compact, pickPrimitives } from '../payload-fields';
import { standardWebhookId, standardWebhooks } from '../schemes/standard-webhooks';

const clerkEvent = z.object({
  type: z.string().min(1),
  object: z.literal('event').optional(),
  data: z.record(z.string(), z.unknown()),
});

/** The primary address among `email_addresses`, else the first one. */
function primaryEmail(user: Record<string, unknown>): string | undefined {
  const addresses = Array.isArray(user.email_addresses) ? user.email_addresses.map((item) => asRecord(item) ?? {}) : [];
  const primary = addresses.find((address) => address.id === user.primary_email_address_id) ?? addresses[0];
  return primary === undefined ? undefined : asEmail(primary.email_address);
}

/**
 * Clerk (docs/sources.md#clerk), delivered by Svix: `clerk.<type>` events. User events name the
 * user by `data.id` (with the primary email); session events by `data.user_id`.
 */
export const clerk = defineSource({
  id: 'clerk',
  description: 'Clerk events via Svix (standard-webhooks, svix-* headers)',
  auth: { type: 'signature', secret: 'CLERK_WEBHOOK_SECRET', scheme: standardWebhooks },
  mountWhenSecretSet: true,
  schema: clerkEvent,
  transform(payload, headers) {
    const data = payload.data;
    const isUser = payload.type.startsWith('user.');
    const userId = isUser ? asString(data.id) : asString(data.user_id);
    const userEmail = isUser ? primaryEmail(data) : undefined;
    if (userId === undefined && userEmail === undefined) return undefined;
    const deliveryId = standardWebhookId(headers);
    const names = isUser ? pickPrimitives(data, ['first_name', 'last_name', 'username']) : {};
    return {
      event: `clerk.${payload.type}`,
      userId,
      userEmail,
      eventProperties: compact({
        clerkEventId: deliveryId,
        clerkObjectId: asString(data.id),
        ...pickPrimitives(data, ['status', 'deleted']),
        ...names,
      }),
      contactProperties: Object.keys(names).length === 0 ? undefined : names,
      idempotencyKey: deliveryId,
    };
  },
});
