import { z } from 'zod';
import { defineSource } from '../define-source';
import { asEmail, asRecord, asString, compact, pickPrimitives } from '../payload-fields';
import { timestampedHmac } from '../schemes/timestamped-hmac';

const stripeEvent = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  livemode: z.boolean().optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/** Fields of invoices, charges, checkout sessions and subscriptions worth branching a journey on. */
const INTERESTING = [
  'amount',
  'amount_due',
  'amount_paid',
  'amount_total',
  'currency',
  'status',
  'billing_reason',
  'cancel_at_period_end',
  'current_period_end',
  'trial_start',
  'trial_end',
  'collection_method',
] as const;

/** The plan of a subscription (its first item's price) or of a legacy `plan` field. */
function planOf(object: Record<string, unknown>): string | undefined {
  const items = asRecord(object.items)?.data;
  const price = asRecord(Array.isArray(items) ? asRecord(items[0])?.price : undefined) ?? asRecord(object.plan);
  if (price === undefined) return undefined;
  return asString(price.lookup_key) ?? asString(price.nickname) ?? asString(price.id);
}

/**
 * Stripe (docs/sources.md#stripe): `stripe.<type>` events for the person named by the object's
 * `metadata.userId` (or `user_id`) and/or its `customer_email` / `receipt_email` / `email`.
 */
export const stripe = defineSource({
  id: 'stripe',
  description: 'Stripe events, signed with the Stripe-Signature header (t=…,v1=…)',
  auth: { type: 'signature', secret: 'STRIPE_WEBHOOK_SECRET', scheme: timestampedHmac({ header: 'stripe-signature' }) },
  mountWhenSecretSet: true,
  schema: stripeEvent,
  transform(payload) {
    const object = payload.data.object;
    const metadata = asRecord(object.metadata) ?? {};
    const userId = asString(metadata.userId) ?? asString(metadata.user_id);
    const userEmail = asEmail(object.customer_email) ?? asEmail(object.receipt_email) ?? asEmail(object.email);
    if (userId === undefined && userEmail === undefined) return undefined;
    const customerId = asString(object.customer) ?? (object.object === 'customer' ? asString(object.id) : undefined);
    return {
      event: `stripe.${payload.type}`,
      userId,
      userEmail,
      eventProperties: compact({
        stripeEventId: payload.id,
        stripeObject: asString(object.object),
        stripeObjectId: asString(object.id),
        stripeCustomerId: customerId,
        livemode: payload.livemode,
        plan: planOf(object),
        ...pickPrimitives(object, INTERESTING),
      }),
      contactProperties: customerId === undefined ? undefined : { stripeCustomerId: customerId },
      idempotencyKey: payload.id,
    };
  },
});
