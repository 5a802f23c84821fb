/**
 * Webhook bodies shaped like the providers' own (trimmed to the fields that matter, ids in
 * their formats), and signers that sign them the way each provider does. Shared by the preset
 * unit tests, the integration tests and bench/webhook-sources.ts.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// a subscription carries no email: the person is the metadata user id (the contact's email is used)
export const stripeSubscriptionTrialWillEnd = (n = 1, userId = 'user_42') => ({
  id: `evt_1PzTrial${n}WillEnd`,
  object: 'event',
  api_version: '2024-06-20',
  created: 1_726_000_000,
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type: 'customer.subscription.trial_will_end',
  data: {
    object: {
      id: 'sub_1PzAbc',
      object: 'subscription',
      customer: 'cus_Qx12',
      status: 'trialing',
      cancel_at_period_end: false,
      currency: 'usd',
      trial_end: 1_726_259_200,
      metadata: { userId },
      items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_1', lookup_key: 'pro_monthly', unit_amount: 2900 } }] },
    },
  },
});

export const stripeInvoicePaid = (n = 1, email = 'grace@example.com') => ({
  id: `evt_1PzInvoice${n}`,
  object: 'event',
  api_version: '2024-06-20',
  created: 1_726_000_000,
  livemode: false,
  type: 'invoice.paid',
  data: {
    object: {
      id: 'in_1PzXyz',
      object: 'invoice',
      customer: 'cus_Qx13',
      customer_email: email,
      amount_paid: 2900,
      amount_due: 2900,
      currency: 'usd',
      status: 'paid',
      billing_reason: 'subscription_cycle',
      metadata: {},
    },
  },
});

export const clerkUserCreated = (userId = 'user_29w83sxmDNGwOuEthce5gg56FcC', email = 'example@example.org') => ({
  data: {
    id: userId,
    object: 'user',
    first_name: 'Example',
    last_name: 'Example',
    username: null,
    created_at: 1_654_012_591_514,
    primary_email_address_id: 'idn_29w83yL7CwVlJXylYLxcslromF1',
    email_addresses: [
      { id: 'idn_other', object: 'email_address', email_address: 'secondary@example.org', linked_to: [] },
      { id: 'idn_29w83yL7CwVlJXylYLxcslromF1', object: 'email_address', email_address: email, linked_to: [], verification: { status: 'verified' } },
    ],
    public_metadata: {},
    private_metadata: {},
  },
  event_attributes: { http_request: { client_ip: '0.0.0.0', user_agent: 'Mozilla/5.0' } },
  object: 'event',
  timestamp: 1_654_012_591_835,
  type: 'user.created',
});

export const clerkSessionCreated = (userId = 'user_29w83sxmDNGwOuEthce5gg56FcC') => ({
  data: { id: 'sess_2abc', object: 'session', user_id: userId, client_id: 'client_2abc', status: 'active', created_at: 1_654_012_591_514 },
  object: 'event',
  timestamp: 1_654_012_591_835,
  type: 'session.created',
});

export const supabaseUserInsert = (id = '8d0fd2b3-9ca7-4d9e-a95f-9e13dded323e', email = 'linus@example.com') => ({
  type: 'INSERT',
  table: 'users',
  schema: 'auth',
  record: {
    id,
    aud: 'authenticated',
    role: 'authenticated',
    email,
    encrypted_password: '$2a$10$secret',
    created_at: '2024-09-10T10:00:00Z',
    confirmed_at: null,
  },
  old_record: null,
});

export const segmentTrack = (n = 1, userId = '019mr8mf4r') => ({
  type: 'track',
  version: 1,
  messageId: `ajs-next-${n}-f8ca1e4de5024d9430b3928bd8ac6b96`,
  userId,
  anonymousId: '507f191e810c19729de860ea',
  event: 'Order Completed',
  properties: { revenue: 39.95, currency: 'USD', orderId: '50314b8e9bcf000000000000' },
  context: { ip: '8.8.8.8', traits: { email: 'peter@example.com' } },
  timestamp: '2024-09-10T10:00:00.000Z',
});

export const segmentIdentify = (userId = '019mr8mf4r') => ({
  type: 'identify',
  messageId: 'ajs-next-identify-1',
  userId,
  anonymousId: '507f191e810c19729de860ea',
  traits: { email: 'peter@example.com', name: 'Peter Gibbons', plan: 'premium' },
  timestamp: '2024-09-10T10:00:00.000Z',
});

export const analyticsEvent = (uuid = '0190f0d4-8a6b-7c3e-9d2a-5b4c3d2e1f00', email: string | undefined = 'ada@example.com') => ({
  event: {
    uuid,
    event: 'plan.viewed',
    distinct_id: 'user-analytics-1',
    properties: { $current_url: 'https://app.example.com/pricing', plan: 'pro' },
    timestamp: '2024-09-10T10:00:00.000Z',
    url: 'https://eu.posthog.com/project/1/events/x',
  },
  person: { id: 'p1', name: 'Ada', url: 'https://eu.posthog.com/person/p1', properties: email === undefined ? { plan: 'pro' } : { email, plan: 'pro' } },
  project: { id: 1, name: 'Default project' },
});

/** Stripe: `Stripe-Signature: t=<unix>,v1=<hmac-sha256 hex of "t.body">` (several secrets: several v1). */
export function stripeSignature(body: string, secrets: string[], timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const v1 = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  return { 'stripe-signature': [`t=${timestamp}`, ...v1].join(',') };
}

/** Svix / standard-webhooks headers, signed with the standardwebhooks package itself. */
export function standardWebhookHeaders(
  body: string,
  secrets: string[],
  options: { id?: string; timestamp?: Date; prefix?: 'webhook' | 'svix' } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${Math.random().toString(36).slice(2)}`;
  const timestamp = options.timestamp ?? new Date();
  const prefix = options.prefix ?? 'webhook';
  const signature = secrets.map((secret) => new Webhook(secret.replace(/^v1,/, '')).sign(id, timestamp, body)).join(' ');
  return { [`${prefix}-id`]: id, [`${prefix}-timestamp`]: String(Math.floor(timestamp.getTime() / 1000)), [`${prefix}-signature`]: signature };
}

/** Segment: `X-Signature: <hmac-sha1 hex of the body>`. */
export function segmentSignature(body: string, secret: string): Record<string, string> {
  return { 'x-signature': createHmac('sha1', secret).update(body).digest('hex') };
}

/** A fresh `whsec_` secret, as Svix and Supabase issue them. */
export function newStandardSecret(seed = Math.random().toString(36)): string {
  return `whsec_${Buffer.from(`waymark-test-${seed}`.padEnd(24, '.')).toString('base64')}`;
}
