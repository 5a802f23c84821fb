import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyticsEvent,
  clerkSessionCreated,
  clerkUserCreated,
  newStandardSecret,
  segmentIdentify,
  segmentSignature,
  segmentTrack,
  standardWebhookHeaders,
  stripeInvoicePaid,
  stripeSignature,
  stripeSubscriptionTrialWillEnd,
  supabaseUserInsert,
} from '../../../../../packages/sources/test/provider-payloads';
import { eventually } from '../../../../../test/eventually';
import { journeyStatesOf } from '../../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const STRIPE = 'whsec_stripe_current';
const STRIPE_OLD = 'whsec_stripe_previous';
const CLERK = newStandardSecret('clerk');
const CLERK_OLD = newStandardSecret('clerk-old');
const SUPABASE = `v1,${newStandardSecret('supabase')}`;
const SEGMENT = 'segment-current';
const SEGMENT_OLD = 'segment-previous';
const ANALYTICS = `analytics-${randomUUID()}`;
const PRODUCT = `product-${randomUUID()}`;
const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

const productSignature = (body: string, secret = PRODUCT) => ({ 'x-product-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` });

describe('POST /v1/webhooks/{sourceId}', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      ADMIN_API_KEY: LEGACY,
      STRIPE_WEBHOOK_SECRET: STRIPE,
      CLERK_WEBHOOK_SECRET: CLERK,
      SUPABASE_WEBHOOK_SECRET: SUPABASE,
      // a rotation in progress: both secrets verify until the old one is removed
      SEGMENT_WEBHOOK_SECRET: `${SEGMENT} ${SEGMENT_OLD}`,
      ANALYTICS_WEBHOOK_SECRET: ANALYTICS,
      PRODUCT_WEBHOOK_SECRET: PRODUCT,
    });
  });
  afterAll(() => api.close());

  const post = (sourceId: string, body: string, headers: Record<string, string>) =>
    api.request('POST', `/v1/webhooks/${sourceId}`, { body, headers: { 'content-type': 'application/json', ...headers } });
  const eventsOf = (userId: string) => api.deps.db.selectFrom('events').selectAll().where('userId', '=', userId).execute();

  describe('stripe (timestamped t=…,v1=…)', () => {
    it('ingests stripe.<type> for metadata.userId with the plan and status', async () => {
      const userId = `u-${randomUUID()}`;
      const body = JSON.stringify(stripeSubscriptionTrialWillEnd(Date.now(), userId));
      const response = await post('stripe', body, stripeSignature(body, [STRIPE]));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ok: true, event: 'stripe.customer.subscription.trial_will_end', userId, exits: [] });
      const [event] = await eventsOf(userId);
      expect(event).toMatchObject({ source: 'webhook', userEmail: null });
      expect(event!.properties).toMatchObject({ plan: 'pro_monthly', status: 'trialing', stripeCustomerId: 'cus_Qx12' });
      expect(event!.idempotencyKey).toMatch(/^stripe:evt_/);
    });

    it('starts the trial-ending journey for a user Clerk introduced (the subscription itself carries no email)', async () => {
      const userId = `user_${randomUUID()}`;
      const user = JSON.stringify(clerkUserCreated(userId, `${userId}@example.com`));
      expect((await post('clerk', user, standardWebhookHeaders(user, [CLERK], { prefix: 'svix' }))).status).toBe(200);
      const body = JSON.stringify(stripeSubscriptionTrialWillEnd(Date.now(), userId));
      expect((await post('stripe', body, stripeSignature(body, [STRIPE]))).status).toBe(200);
      const [state] = await eventually(
        () => journeyStatesOf(api.deps.db, userId, 'trial-ending'),
        (rows) => rows.some((row) => row.status === 'waiting'),
        { what: 'trial-ending waiting after its first email' },
      );
      expect(state).toMatchObject({ userEmail: `${userId}@example.com`, currentNodeId: 'sleep:2 days' });
    });

    it('keys an email-only invoice by its address', async () => {
      const email = `inv-${randomUUID()}@example.com`;
      const body = JSON.stringify(stripeInvoicePaid(Date.now(), email));
      const response = await post('stripe', body, stripeSignature(body, [STRIPE]));
      expect(response.body).toMatchObject({ ok: true, event: 'stripe.invoice.paid', userId: email });
    });

    it('accepts a rotation (old and new v1); refuses a wrong secret, a tampered body, a stale timestamp, no header', async () => {
      const payload = stripeSubscriptionTrialWillEnd(Date.now(), `u-${randomUUID()}`);
      const body = JSON.stringify(payload);
      expect((await post('stripe', body, stripeSignature(body, [STRIPE_OLD, STRIPE]))).status).toBe(200);
      expect(await post('stripe', body, stripeSignature(body, ['whsec_wrong']))).toMatchObject({ status: 401, body: { error: 'Invalid webhook signature' } });
      expect((await post('stripe', body.replace('trialing', 'active__'), stripeSignature(body, [STRIPE]))).status).toBe(401);
      expect((await post('stripe', body, stripeSignature(body, [STRIPE], Math.floor(Date.now() / 1000) - 6 * 60))).status).toBe(401);
      expect((await post('stripe', body, {})).status).toBe(401);
    });

    it('a redelivered event (same evt id) is stored once', async () => {
      const userId = `u-${randomUUID()}`;
      const body = JSON.stringify(stripeSubscriptionTrialWillEnd(Date.now(), userId));
      const first = await post('stripe', body, stripeSignature(body, [STRIPE]));
      const again = await post('stripe', body, stripeSignature(body, [STRIPE]));
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(await eventsOf(userId)).toHaveLength(1);
    });

    it('skips an object that names nobody (200 skipped) and rejects a schema failure with its path (400)', async () => {
      const nobody = stripeInvoicePaid(Date.now(), 'x');
      nobody.data.object.customer_email = 'not-an-address';
      const skipped = JSON.stringify(nobody);
      expect(await post('stripe', skipped, stripeSignature(skipped, [STRIPE]))).toMatchObject({ status: 200, body: { ok: true, skipped: true } });
      const invalid = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: {} });
      const response = await post('stripe', invalid, stripeSignature(invalid, [STRIPE]));
      expect(response.status).toBe(400);
      expect(response.body.error).toContain('data.object');
    });
  });

  describe('clerk (standard-webhooks, svix-* headers)', () => {
    it('user.created by data.id with the primary email; session.created by data.user_id', async () => {
      const userId = `user_${randomUUID()}`;
      const user = JSON.stringify(clerkUserCreated(userId, `${userId}@example.com`));
      expect(await post('clerk', user, standardWebhookHeaders(user, [CLERK], { prefix: 'svix' }))).toMatchObject({
        status: 200,
        body: { ok: true, event: 'clerk.user.created', userId },
      });
      const session = JSON.stringify(clerkSessionCreated(userId));
      expect(await post('clerk', session, standardWebhookHeaders(session, [CLERK], { prefix: 'svix' }))).toMatchObject({
        status: 200,
        body: { event: 'clerk.session.created', userId },
      });
      const contact = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', userId).executeTakeFirstOrThrow();
      expect(contact).toMatchObject({ email: `${userId}@example.com`, properties: { first_name: 'Example', last_name: 'Example' } });
    });

    it('accepts a rotation (two signatures); refuses a wrong secret, tampering, a stale timestamp, missing headers', async () => {
      const body = JSON.stringify(clerkUserCreated(`user_${randomUUID()}`));
      expect((await post('clerk', body, standardWebhookHeaders(body, [CLERK_OLD, CLERK], { prefix: 'svix' }))).status).toBe(200);
      expect((await post('clerk', body, standardWebhookHeaders(body, [CLERK_OLD], { prefix: 'svix' }))).status).toBe(401);
      const signed = standardWebhookHeaders(body, [CLERK], { prefix: 'svix' });
      expect((await post('clerk', body.replace('Example', 'Exempel'), signed)).status).toBe(401);
      const stale = standardWebhookHeaders(body, [CLERK], { prefix: 'svix', timestamp: new Date(Date.now() - 6 * 60_000) });
      expect((await post('clerk', body, stale)).status).toBe(401);
      const { 'svix-signature': _omitted, ...unsigned } = signed;
      expect((await post('clerk', body, unsigned)).status).toBe(401);
    });

    it('a redelivery (same svix-id) is stored once', async () => {
      const userId = `user_${randomUUID()}`;
      const body = JSON.stringify(clerkUserCreated(userId));
      const id = `msg_${randomUUID()}`;
      await post('clerk', body, standardWebhookHeaders(body, [CLERK], { prefix: 'svix', id }));
      await post('clerk', body, standardWebhookHeaders(body, [CLERK], { prefix: 'svix', id }));
      expect(await eventsOf(userId)).toHaveLength(1);
    });
  });

  describe('supabase (standard-webhooks or x-webhook-secret)', () => {
    it('a signed auth.users insert becomes supabase.auth.users.insert without credentials', async () => {
      const id = randomUUID();
      const body = JSON.stringify(supabaseUserInsert(id, `${id}@example.com`));
      expect(await post('supabase', body, standardWebhookHeaders(body, [SUPABASE]))).toMatchObject({
        status: 200,
        body: { ok: true, event: 'supabase.auth.users.insert', userId: id },
      });
      const [event] = await eventsOf(id);
      expect(event!.properties).toMatchObject({ supabaseTable: 'users', role: 'authenticated' });
      expect(event!.properties).not.toHaveProperty('encrypted_password');
    });

    it('an unsigned database webhook passes with x-webhook-secret, not with a wrong one', async () => {
      const id = randomUUID();
      const body = JSON.stringify(supabaseUserInsert(id));
      expect((await post('supabase', body, { 'x-webhook-secret': SUPABASE })).status).toBe(200);
      expect((await post('supabase', body, { 'x-webhook-secret': 'guess' })).status).toBe(401);
      expect((await post('supabase', body.replace('linus', 'linux'), standardWebhookHeaders(body, [SUPABASE]))).status).toBe(401);
    });
  });

  describe('segment (X-Signature, HMAC-SHA1 hex)', () => {
    it('track keeps its name and anonymousId; identify merges traits onto the contact', async () => {
      const userId = `seg-${randomUUID()}`;
      const track = JSON.stringify(segmentTrack(Date.now(), userId));
      expect(await post('segment', track, segmentSignature(track, SEGMENT))).toMatchObject({ status: 200, body: { event: 'Order Completed', userId } });
      const identify = JSON.stringify(segmentIdentify(userId));
      expect(await post('segment', identify, segmentSignature(identify, SEGMENT))).toMatchObject({ status: 200, body: { event: 'identify' } });
      const events = await eventsOf(userId);
      expect(events.find((event) => event.event === 'Order Completed')!.properties).toMatchObject({ revenue: 39.95, anonymousId: '507f191e810c19729de860ea' });
      const contact = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', userId).executeTakeFirstOrThrow();
      expect(contact.properties).toMatchObject({ plan: 'premium', name: 'Peter Gibbons' });
    });

    it('the old secret of a rotation still verifies; wrong secret, tampering and no header do not', async () => {
      const body = JSON.stringify(segmentTrack(Date.now(), `seg-${randomUUID()}`));
      expect((await post('segment', body, segmentSignature(body, SEGMENT_OLD))).status).toBe(200);
      expect((await post('segment', body, segmentSignature(body, 'segment-wrong'))).status).toBe(401);
      expect((await post('segment', body.replace('39.95', '0.01'), segmentSignature(body, SEGMENT))).status).toBe(401);
      expect((await post('segment', body, {})).status).toBe(401);
    });

    it('group calls are skipped', async () => {
      const body = JSON.stringify({ type: 'group', userId: 'u1', groupId: 'g1', messageId: `m-${randomUUID()}` });
      expect(await post('segment', body, segmentSignature(body, SEGMENT))).toMatchObject({ status: 200, body: { ok: true, skipped: true } });
    });

    it('an event exits the journey states it matches and lists them', async () => {
      const userId = `seg-${randomUUID()}`;
      const trial = JSON.stringify({ ...segmentTrack(Date.now(), userId), event: 'trial.started', properties: { plan: 'pro' } });
      expect((await post('segment', trial, segmentSignature(trial, SEGMENT))).status).toBe(200);
      const [state] = await eventually(
        () => journeyStatesOf(api.deps.db, userId, 'trial-conversion'),
        (rows) => rows.some((row) => row.status === 'waiting'),
        { what: 'trial-conversion waiting' },
      );
      const subscribed = JSON.stringify({ ...segmentTrack(Date.now() + 1, userId), event: 'subscription.started', properties: {} });
      const response = await post('segment', subscribed, segmentSignature(subscribed, SEGMENT));
      expect(response.body).toEqual({ ok: true, event: 'subscription.started', userId, exits: [{ journeyId: 'trial-conversion', stateId: state!.id }] });
    });
  });

  describe('analytics (match on x-analytics-webhook-secret)', () => {
    it('the contract mapping; uuid kept as _analyticsEventId; Bearer works too; a wrong or missing secret is 401', async () => {
      const uuid = randomUUID();
      const body = JSON.stringify(analyticsEvent(uuid, 'ada@example.com'));
      expect(await post('analytics', body, { 'x-analytics-webhook-secret': ANALYTICS })).toMatchObject({
        status: 200,
        body: { ok: true, event: 'plan.viewed', userId: 'user-analytics-1', exits: [] },
      });
      const event = await api.deps.db.selectFrom('events').selectAll().where('idempotencyKey', '=', `analytics:${uuid}`).executeTakeFirstOrThrow();
      expect(event.properties).toMatchObject({ _analyticsEventId: uuid, plan: 'pro' });
      const other = JSON.stringify(analyticsEvent(randomUUID()));
      expect((await post('analytics', other, { authorization: `Bearer ${ANALYTICS}` })).status).toBe(200);
      expect(await post('analytics', other, { 'x-analytics-webhook-secret': 'nope' })).toMatchObject({
        status: 401,
        body: { error: 'Invalid webhook secret' },
      });
      expect((await post('analytics', other, {})).status).toBe(401);
    });

    it('remembers person properties in Redis: a later event without them still carries the email', async () => {
      const distinctId = `ph-${randomUUID()}`;
      const first = analyticsEvent(randomUUID(), `${distinctId}@example.com`);
      first.event.distinct_id = distinctId;
      await post('analytics', JSON.stringify(first), { 'x-analytics-webhook-secret': ANALYTICS });
      const later = { event: { event: 'feature.used', distinct_id: distinctId, uuid: randomUUID() } };
      expect((await post('analytics', JSON.stringify(later), { 'x-analytics-webhook-secret': ANALYTICS })).status).toBe(200);
      const stored = await api.deps.db
        .selectFrom('events')
        .selectAll()
        .where('userId', '=', distinctId)
        .where('event', '=', 'feature.used')
        .executeTakeFirstOrThrow();
      expect(stored.userEmail).toBe(`${distinctId}@example.com`);
      expect(await api.deps.redis.hget(`waymark:source-person:analytics:${distinctId}`, 'plan')).toBe('"pro"');
    });

    it('forgets an erased person: a later event without an email carries the erased address neither on the event nor on the contact it creates', async () => {
      const distinctId = `ph-${randomUUID()}`;
      const first = analyticsEvent(randomUUID(), `${distinctId}@example.com`);
      first.event.distinct_id = distinctId;
      await post('analytics', JSON.stringify(first), { 'x-analytics-webhook-secret': ANALYTICS });
      const ingestKey = await issueApiKey(api, LEGACY, `erase-${distinctId}`, ['ingest']);
      expect((await api.request('DELETE', `/v1/contacts/${distinctId}`, { token: ingestKey })).status).toBe(200);
      expect(await api.deps.redis.exists(`waymark:source-person:analytics:${distinctId}`)).toBe(0);

      const later = { event: { event: 'feature.used', distinct_id: distinctId, uuid: randomUUID() } };
      expect((await post('analytics', JSON.stringify(later), { 'x-analytics-webhook-secret': ANALYTICS })).status).toBe(200);
      const stored = await api.deps.db.selectFrom('events').select('userEmail').where('userId', '=', distinctId).executeTakeFirstOrThrow();
      expect(stored.userEmail).toBeNull();
      const contact = await api.deps.db.selectFrom('contacts').select('email').where('externalId', '=', distinctId).executeTakeFirstOrThrow();
      expect(contact.email).toBeNull();
    });
  });

  describe('a team source (journeys/sources/product-backend.ts) and the generic rules', () => {
    it('a redelivered account.created is stored once and starts one welcome series', async () => {
      const accountId = `acct-${randomUUID()}`;
      const body = JSON.stringify({ id: `msg-${randomUUID()}`, type: 'account.created', account: { id: accountId, email: `${accountId}@example.com` } });
      const first = await post('product-backend', body, productSignature(body));
      const again = await post('product-backend', body, productSignature(body));
      expect(first.body).toEqual({ ok: true, event: 'user.signed_up', userId: accountId, exits: [] });
      expect(again.status).toBe(200);
      expect(await eventsOf(accountId)).toHaveLength(1);
      const states = await eventually(
        () => journeyStatesOf(api.deps.db, accountId, 'welcome-series'),
        (rows) => rows.length > 0,
        { what: 'welcome-series state' },
      );
      expect(states).toHaveLength(1);
    });

    it('unknown source 404; body over 1 MiB 413; not JSON 400; empty body 400', async () => {
      expect(await post('nope', '{}', {})).toMatchObject({ status: 404, body: { error: 'Unknown webhook source' } });
      const huge = JSON.stringify({ id: 'm', type: 'account.created', account: { id: 'a', pad: 'x'.repeat(1024 * 1024) } });
      const tooLarge = await post('product-backend', huge, productSignature(huge));
      expect(tooLarge.status).toBe(413);
      expect(typeof tooLarge.body.error).toBe('string');
      expect(await post('product-backend', 'not json', productSignature('not json'))).toMatchObject({
        status: 400,
        body: { error: expect.stringContaining('JSON') },
      });
      const empty = await api.request('POST', '/v1/webhooks/product-backend', { headers: productSignature('') });
      expect(empty.status).toBe(400);
    });

    it('verifies the exact bytes: the same JSON re-serialised differently fails', async () => {
      const body = '{"id":"m-bytes","type":"account.created","account":{"id":"a-bytes"}}';
      const spaced = '{ "id": "m-bytes", "type": "account.created", "account": { "id": "a-bytes" } }';
      expect((await post('product-backend', spaced, productSignature(body))).status).toBe(401);
    });

    it('the OpenAPI document describes the route and its mounted sources', async () => {
      const spec = await api.request('GET', '/openapi.json');
      const operation = spec.body.paths['/v1/webhooks/{sourceId}'].post;
      expect(operation.description).toContain('`stripe`');
      expect(operation.description).toContain('`product-backend`');
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '413']));
      expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
    });
  });
});

describe('POST /v1/webhooks/{sourceId} with no secrets set', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({});
  });
  afterAll(() => api.close());

  it('match and signature sources refuse everything (401), an unconfigured preset is not mounted (404)', async () => {
    // a match source is open only when ANALYTICS_WEBHOOK_OPEN=true says so (docs/security.md)
    const closed = await api.request('POST', '/v1/webhooks/analytics', { body: analyticsEvent(randomUUID()) });
    expect(closed).toMatchObject({ status: 401, body: { error: 'Invalid webhook secret' } });
    const body = JSON.stringify({ id: 'm-1', type: 'account.created', account: { id: 'a-1' } });
    expect(await api.request('POST', '/v1/webhooks/product-backend', { body, headers: productSignature(body) })).toMatchObject({
      status: 401,
      body: { error: 'Invalid webhook signature' },
    });
    const stripe = JSON.stringify(stripeInvoicePaid());
    expect((await api.request('POST', '/v1/webhooks/stripe', { body: stripe, headers: stripeSignature(stripe, [STRIPE]) })).status).toBe(404);
  });
});
