import { z } from 'zod';
import { defineEvents } from '@waymark/journey';

/**
 * The events this deployment's journeys speak (docs/journeys.md#typed-events). A catalogued event
 * whose properties do not match is quarantined (stored, routed nowhere), refused or let through, as
 * EVENT_CATALOG_MODE says (docs/journeys.md, "Catalog violations"); other events pass unchecked. GET /v1/admin/event-catalog lists them as JSON Schema. Schemas keep
 * to JSON primitives, the only properties a run receives; numbers coerce, as webhooks send strings.
 */
export const events = defineEvents({
  'user.signed_up': z.object({ firstName: z.string().optional(), plan: z.enum(['free', 'pro', 'team']).optional() }),
  'user.deleted': z.object({}),
  'user.inactive': z.object({ daysInactive: z.coerce.number<unknown>().int().nonnegative() }),
  'session.started': z.object({}),
  'project.created': z.object({ projectId: z.string(), name: z.string().optional() }),
  'project.published': z.object({ projectId: z.string().optional() }),
  'trial.started': z.object({ plan: z.enum(['free', 'pro', 'team']) }),
  'pricing.viewed': z.object({}),
  'subscription.started': z.object({ plan: z.string().optional() }),
  'subscription.updated': z.object({ status: z.enum(['active', 'trialing', 'past_due', 'unpaid', 'canceled', 'incomplete', 'paused']) }),
  'subscription.cancelled': z.object({ reason: z.string().optional() }),
  'payment.failed': z.object({ amount: z.string().optional() }),
});
