import { z } from 'zod';
import { defineSource } from '../define-source';
import { asEmail, asString, compact, safePrimitives } from '../payload-fields';
import { standardWebhookId, standardWebhooks } from '../schemes/standard-webhooks';

const row = z.record(z.string(), z.unknown());

/** A Supabase database webhook (https://supabase.com/docs/guides/database/webhooks). */
const databaseWebhook = z.object({
  type: z.enum(['INSERT', 'UPDATE', 'DELETE']),
  table: z.string().min(1),
  schema: z.string().min(1),
  record: row.nullable(),
  old_record: row.nullable().optional(),
});

/**
 * Supabase (docs/sources.md#supabase): a row change becomes `supabase.<schema>.<table>.<type>`
 * for the person the row names (`id` or `user_id`, and `email`). Signed deliveries use
 * standard-webhooks; database webhooks, which Supabase does not sign, pass with the header
 * `x-webhook-secret` set to the same secret.
 */
export const supabase = defineSource({
  id: 'supabase',
  description: 'Supabase database webhooks (x-webhook-secret header) or signed hooks (standard-webhooks)',
  auth: { type: 'signature', secret: 'SUPABASE_WEBHOOK_SECRET', scheme: standardWebhooks, fallbackHeader: 'x-webhook-secret' },
  mountWhenSecretSet: true,
  schema: databaseWebhook,
  transform(payload, headers) {
    const current = payload.record ?? payload.old_record ?? {};
    const userId = asString(current.user_id) ?? asString(current.id);
    const userEmail = asEmail(current.email);
    if (userId === undefined && userEmail === undefined) return undefined;
    const deliveryId = standardWebhookId(headers);
    return {
      event: `supabase.${payload.schema}.${payload.table}.${payload.type.toLowerCase()}`,
      userId,
      userEmail,
      eventProperties: compact({
        ...safePrimitives(current),
        supabaseEventId: deliveryId,
        supabaseSchema: payload.schema,
        supabaseTable: payload.table,
        supabaseType: payload.type,
      }),
      idempotencyKey: deliveryId,
    };
  },
});
