/** The event types an endpoint can subscribe to (docs/webhooks.md lists each payload). */
export const outboundEventTypes = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.unsubscribed',
  'contact.resubscribed',
  'contact.suppressed',
  'email.sent',
  'email.delivered',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'journey.enrolled',
  'journey.completed',
  'journey.exited',
  'journey.failed',
] as const;

export type OutboundEventType = (typeof outboundEventTypes)[number];

/** Sent only by POST /v1/admin/webhook-endpoints/{id}/test, to that endpoint, subscribed or not. */
export const TEST_EVENT_TYPE = 'webhook.test';
