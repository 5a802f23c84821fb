import { describe, expect, it } from 'vitest';
import type { Source } from '../define-source';
import {
  analyticsEvent,
  clerkSessionCreated,
  clerkUserCreated,
  segmentIdentify,
  segmentTrack,
  stripeInvoicePaid,
  stripeSubscriptionTrialWillEnd,
  supabaseUserInsert,
} from '../../test/provider-payloads';
import { analytics } from './analytics';
import { clerk } from './clerk';
import { builtInSources } from './index';
import { segment } from './segment';
import { stripe } from './stripe';
import { supabase } from './supabase';

/** What the route does between authentication and ingest: schema, then transform. */
function run(source: Source, payload: unknown, headers: Record<string, string> = {}) {
  const parsed = source.schema === undefined ? payload : source.schema.parse(payload);
  return source.transform(parsed, headers);
}

describe('built-in presets', () => {
  it('has unique ids; only the signature presets wait for their secret', () => {
    expect(builtInSources.map((source) => source.id)).toEqual(['stripe', 'clerk', 'supabase', 'segment', 'analytics']);
    expect(builtInSources.filter((source) => source.mountWhenSecretSet).map((source) => source.auth.type)).toEqual([
      'signature',
      'signature',
      'signature',
      'signature',
    ]);
  });

  it('stripe: stripe.<type>, metadata.userId, customer_email, plan and primitives; evt id as key', () => {
    expect(run(stripe, stripeSubscriptionTrialWillEnd(1))).toEqual({
      event: 'stripe.customer.subscription.trial_will_end',
      userId: 'user_42',
      userEmail: undefined,
      eventProperties: {
        stripeEventId: 'evt_1PzTrial1WillEnd',
        stripeObject: 'subscription',
        stripeObjectId: 'sub_1PzAbc',
        stripeCustomerId: 'cus_Qx12',
        livemode: false,
        plan: 'pro_monthly',
        currency: 'usd',
        status: 'trialing',
        cancel_at_period_end: false,
        trial_end: 1_726_259_200,
      },
      contactProperties: { stripeCustomerId: 'cus_Qx12' },
      idempotencyKey: 'evt_1PzTrial1WillEnd',
    });
    const invoice = run(stripe, stripeInvoicePaid());
    expect(invoice).toMatchObject({ event: 'stripe.invoice.paid', userEmail: 'grace@example.com', eventProperties: { amount_paid: 2900, currency: 'usd' } });
    expect(invoice?.userId).toBeUndefined();
    const userIdOnly = stripeInvoicePaid();
    userIdOnly.data.object.metadata = { user_id: 'u-7' } as never;
    userIdOnly.data.object.customer_email = null as never;
    expect(run(stripe, userIdOnly)).toMatchObject({ userId: 'u-7', userEmail: undefined });
  });

  it('stripe: skips an object that names nobody; the schema wants id, type and data.object', () => {
    const nobody = stripeInvoicePaid();
    nobody.data.object.customer_email = 'not an email';
    expect(run(stripe, nobody)).toBeUndefined();
    expect(stripe.schema!.safeParse({ id: 'evt_1', type: 'x' }).success).toBe(false);
  });

  it('clerk: user events by data.id and the primary email; session events by data.user_id', () => {
    expect(run(clerk, clerkUserCreated(), { 'svix-id': 'msg_1' })).toEqual({
      event: 'clerk.user.created',
      userId: 'user_29w83sxmDNGwOuEthce5gg56FcC',
      userEmail: 'example@example.org',
      eventProperties: {
        clerkEventId: 'msg_1',
        clerkObjectId: 'user_29w83sxmDNGwOuEthce5gg56FcC',
        first_name: 'Example',
        last_name: 'Example',
        username: null,
      },
      contactProperties: { first_name: 'Example', last_name: 'Example', username: null },
      idempotencyKey: 'msg_1',
    });
    expect(run(clerk, clerkSessionCreated(), { 'webhook-id': 'msg_2' })).toMatchObject({
      event: 'clerk.session.created',
      userId: 'user_29w83sxmDNGwOuEthce5gg56FcC',
      userEmail: undefined,
      eventProperties: { clerkObjectId: 'sess_2abc', status: 'active' },
      idempotencyKey: 'msg_2',
    });
    expect(run(clerk, { type: 'organization.created', object: 'event', data: { id: 'org_1', name: 'Acme' } })).toBeUndefined();
  });

  it('supabase: supabase.<schema>.<table>.<type>, record id/email, never credentials', () => {
    const event = run(supabase, supabaseUserInsert());
    expect(event).toMatchObject({
      event: 'supabase.auth.users.insert',
      userId: '8d0fd2b3-9ca7-4d9e-a95f-9e13dded323e',
      userEmail: 'linus@example.com',
      eventProperties: { supabaseSchema: 'auth', supabaseTable: 'users', supabaseType: 'INSERT', role: 'authenticated' },
    });
    expect(event?.eventProperties).not.toHaveProperty('encrypted_password');
    expect(event?.idempotencyKey).toBeUndefined();
    const deleted = { type: 'DELETE', table: 'profiles', schema: 'public', record: null, old_record: { id: 'p1', user_id: 'u-9' } };
    expect(run(supabase, deleted)).toMatchObject({ event: 'supabase.public.profiles.delete', userId: 'u-9' });
    expect(run(supabase, { type: 'INSERT', table: 'logs', schema: 'public', record: { level: 'info' } })).toBeUndefined();
    expect(supabase.schema!.safeParse({ type: 'TRUNCATE', table: 't', schema: 's', record: null }).success).toBe(false);
  });

  it('segment: track keeps its name, identify carries traits, page/screen; messageId as key', () => {
    expect(run(segment, segmentTrack(1))).toEqual({
      event: 'Order Completed',
      userId: '019mr8mf4r',
      userEmail: 'peter@example.com',
      anonymousId: '507f191e810c19729de860ea',
      eventProperties: {
        revenue: 39.95,
        currency: 'USD',
        orderId: '50314b8e9bcf000000000000',
        segmentMessageId: 'ajs-next-1-f8ca1e4de5024d9430b3928bd8ac6b96',
        anonymousId: '507f191e810c19729de860ea',
      },
      contactProperties: undefined,
      idempotencyKey: 'ajs-next-1-f8ca1e4de5024d9430b3928bd8ac6b96',
    });
    expect(run(segment, segmentIdentify())).toMatchObject({
      event: 'identify',
      contactProperties: { email: 'peter@example.com', name: 'Peter Gibbons', plan: 'premium' },
    });
    expect(run(segment, { type: 'page', userId: 'u1', name: 'Pricing', properties: { path: '/pricing' } })).toMatchObject({
      event: 'page',
      eventProperties: { path: '/pricing', name: 'Pricing' },
    });
    expect(run(segment, { type: 'screen', userId: 'u1', name: 'Home' })).toMatchObject({ event: 'screen' });
    expect(run(segment, { type: 'group', userId: 'u1', groupId: 'g1' })).toBeUndefined();
    expect(run(segment, { type: 'track', anonymousId: 'anon-only', event: 'Viewed' })).toBeUndefined();
  });

  it('analytics: the contract mapping, uuid kept as _analyticsEventId', () => {
    expect(run(analytics, analyticsEvent())).toEqual({
      event: 'plan.viewed',
      userId: 'user-analytics-1',
      userEmail: 'ada@example.com',
      eventProperties: { $current_url: 'https://app.example.com/pricing', plan: 'pro', _analyticsEventId: '0190f0d4-8a6b-7c3e-9d2a-5b4c3d2e1f00' },
      contactProperties: { email: 'ada@example.com', plan: 'pro' },
      idempotencyKey: '0190f0d4-8a6b-7c3e-9d2a-5b4c3d2e1f00',
    });
    const failure = analytics.schema!.safeParse({ event: { event: 'x' } });
    expect(failure.success).toBe(false);
    expect(failure.error?.issues[0]?.path).toEqual(['event', 'distinct_id']);
  });
});
