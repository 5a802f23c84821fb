import { z } from 'zod';
import { defineSource } from '../define-source';
import { asEmail, compact } from '../payload-fields';

const properties = z.record(z.string(), z.unknown());

/** A product-analytics webhook (PostHog's webhook destination shape). */
const analyticsEvent = z.object({
  event: z.object({
    event: z.string().min(1),
    distinct_id: z.string().min(1),
    uuid: z.string().optional(),
    timestamp: z.string().optional(),
    properties: properties.optional(),
    url: z.string().optional(),
  }),
  person: z
    .object({
      id: z.string().optional(),
      name: z.string().optional(),
      url: z.string().optional(),
      properties: properties.optional(),
    })
    .optional(),
  groups: properties.optional(),
  project: properties.optional(),
});

/**
 * The built-in `analytics` source (docs/sources.md#analytics): the event name, `distinct_id` as
 * the user, the person's properties as contact properties. Always mounted; with
 * ANALYTICS_WEBHOOK_SECRET unset it is open (the match variant). Person properties are cached
 * per person, so a later event that carries none still reaches the person's email.
 */
export const analytics = defineSource({
  id: 'analytics',
  description: 'Product-analytics webhook (PostHog shape); header x-analytics-webhook-secret',
  auth: { type: 'match', secret: 'ANALYTICS_WEBHOOK_SECRET', header: 'x-analytics-webhook-secret' },
  schema: analyticsEvent,
  propertyCache: true,
  transform(payload) {
    const person = payload.person?.properties;
    return {
      event: payload.event.event,
      userId: payload.event.distinct_id,
      userEmail: asEmail(person?.email),
      eventProperties: compact({ ...payload.event.properties, _analyticsEventId: payload.event.uuid }),
      contactProperties: person,
      idempotencyKey: payload.event.uuid,
    };
  },
});
