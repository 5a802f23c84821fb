import { z } from 'zod';
import { defineSource, hmacHex } from '@waymark/sources';

/** What our own backend posts when an account changes (one delivery id per message). */
const accountMessage = z.object({
  id: z.string().min(1),
  type: z.enum(['account.created', 'account.plan_changed', 'account.deleted']),
  account: z.object({
    id: z.string().min(1),
    email: z.email().optional(),
    plan: z.string().optional(),
  }),
});

/**
 * A team's own source (docs/sources.md "Writing a source"): our backend signs each body with
 * HMAC-SHA256 (`X-Product-Signature: sha256=<hex>`, secret PRODUCT_WEBHOOK_SECRET). A new
 * account becomes `user.signed_up`, which starts the welcome series; other messages keep their
 * names. Requests are refused (401) until the secret is set.
 */
export default defineSource({
  id: 'product-backend',
  description: 'Account lifecycle messages from our own backend',
  auth: { type: 'signature', secret: 'PRODUCT_WEBHOOK_SECRET', scheme: hmacHex({ header: 'x-product-signature', prefix: 'sha256=' }) },
  schema: accountMessage,
  transform(message) {
    const { account } = message;
    return {
      event: message.type === 'account.created' ? 'user.signed_up' : message.type,
      userId: account.id,
      userEmail: account.email,
      eventProperties: { messageId: message.id, ...(account.plan === undefined ? {} : { plan: account.plan }) },
      contactProperties: account.plan === undefined ? undefined : { plan: account.plan },
      idempotencyKey: message.id,
    };
  },
});
