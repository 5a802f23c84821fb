import type { paths } from '../../../api/schema';

export type EventType = paths['/v1/admin/webhook-endpoints']['post']['requestBody']['content']['application/json']['events'][number];

/**
 * Every event type an endpoint can take, with when it is sent (docs/webhooks.md). Typed against
 * the API's enum, so a type added to or dropped from the API fails the studio's typecheck here.
 */
export const eventTypeHints = {
  'contact.created': 'a contact is first seen',
  'contact.updated': 'its email or properties change',
  'contact.deleted': 'admin delete or data-plane erasure',
  'contact.unsubscribed': 'unsubscribe page, one-click, preference center or admin',
  'contact.resubscribed': 'global or per-category resubscribe',
  'contact.suppressed': 'delivery suppressed (bounces, complaint, admin)',
  'email.sent': 'SES accepted the message',
  'email.delivered': 'the provider delivered it',
  'email.bounced': 'the provider reported a bounce',
  'email.complained': 'the recipient marked it as spam',
  'email.opened': 'first open by a person',
  'email.clicked': 'first click by a person',
  'email.failed': 'the send failed for good (also in the DLQ)',
  'journey.enrolled': 'a user enters a journey',
  'journey.completed': 'a run completes',
  'journey.exited': 'a run exits (exit rule or cancel)',
  'journey.failed': 'a run fails',
} satisfies Record<EventType, string>;

export const eventTypes = Object.keys(eventTypeHints) as EventType[];

/** contact.*, email.*, journey.*: one fieldset each in the form. */
export const eventGroups = ['contact', 'email', 'journey'].map((group) => ({
  group,
  types: eventTypes.filter((type) => type.startsWith(`${group}.`)),
}));
