import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { stripeSignature, stripeSubscriptionTrialWillEnd } from '../../../../packages/sources/test/provider-payloads';
import { buildStudioIfStale } from '../../../../scripts/studio-build';
import { createTestAdmin, SessionClient } from '../../../../test/auth-client';
import { uniqueAddress } from '../../../../test/email-emulator';
import { freePort } from '../../../../test/free-port';
import { throwawayRedis, type ThrowawayRedis } from '../../../../test/throwaway-services';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { STUDIO_DIST } from './studio';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const STRIPE = `whsec_${randomUUID()}`;
// the contract's per-key budget (100 a minute): every caller below would meet it if it were counted there
const contractLimits = { ADMIN_API_KEY: LEGACY, RATE_LIMIT_MAX: '100', RATE_LIMIT_WINDOW_MS: '60000', TRUST_PROXY: 'true' };

/** An address of this test's own (behind the trusted proxy), so no other test file's calls share its window. */
const ownAddress = () => `2001:db8:${randomUUID().slice(0, 4)}::${randomUUID().slice(0, 4)}`;

/** `count` calls, `parallel` at a time: a burst from one address, as an image proxy or a link scanner sends it. */
async function burst<T>(count: number, call: () => Promise<T>, parallel = 20): Promise<T[]> {
  const results: T[] = [];
  for (let done = 0; done < count; done += parallel) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - done) }, call))));
  }
  return results;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

async function sentEmail(api: TestApi) {
  const to = uniqueAddress('rl');
  const userId = `u-${randomUUID()}`;
  const result = await sendEmail(api.deps.email, { templateKey: 'welcome-tips', to, userId, idempotencyKey: randomUUID() });
  if (result.status !== 'sent') throw new Error(`send ${result.status}`);
  const link = await api.deps.db
    .selectFrom('trackedLinks')
    .selectAll()
    .where('emailSendId', '=', result.emailSendId)
    .orderBy('originalUrl')
    .executeTakeFirstOrThrow();
  return { id: result.emailSendId, to, userId, link };
}

const clickCount = async (api: TestApi, linkId: string) =>
  (await api.deps.db.selectFrom('trackedLinks').select('clickCount').where('id', '=', linkId).executeTakeFirstOrThrow()).clickCount;

async function droppedMetric(api: TestApi, kind: 'open' | 'click'): Promise<number> {
  const text = (await api.request('GET', '/v1/metrics', { token: LEGACY })).text;
  const line = text.split('\n').find((row) => row.startsWith(`waymark_tracking_dropped_total{kind="${kind}"}`));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

async function oneClickUnsubscribe(api: TestApi, from: string, email: string, userId: string) {
  const token = await api.deps.email.tokens.sign({ externalId: userId, email, action: 'unsubscribe' });
  return api.request('POST', `/v1/email/unsubscribe?token=${token}`, {
    headers: { 'x-forwarded-for': from, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
}

describe('rate limits by who is asking (docs/operations.md, Rate limits)', () => {
  let api: TestApi;
  beforeAll(async () => {
    // before the api starts: the studio plugin routes the files it finds at start-up, one per file
    await buildStudioIfStale();
    api = await startTestApi(contractLimits);
  });
  afterAll(() => api?.close());

  it('recipients are never limited: 300 clicks from one address are 300 redirects, each recorded', async () => {
    const email = await sentEmail(api);
    const from = ownAddress();
    const answers = await burst(300, () => api.request('GET', `/v1/t/c/${email.link.id}`, { headers: { 'x-forwarded-for': from } }));
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 302: 300 });
    expect(new Set(answers.map((answer) => answer.headers.get('location')))).toEqual(new Set([email.link.originalUrl]));
    expect(await clickCount(api, email.link.id)).toBe(300);
  });

  it('recipients are never limited: 300 pixel fetches from one address are 300 GIFs', async () => {
    const email = await sentEmail(api);
    const from = ownAddress();
    const answers = await burst(300, () => api.request('GET', `/v1/t/o/${email.id}`, { headers: { 'x-forwarded-for': from } }));
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 200: 300 });
    expect(new Set(answers.map((answer) => answer.headers.get('content-type')))).toEqual(new Set(['image/gif']));
    const send = await api.deps.db.selectFrom('emailSends').select('openedAt').where('id', '=', email.id).executeTakeFirstOrThrow();
    expect(send.openedAt).toBeInstanceOf(Date);
  });

  it('the studio is never limited: 200 fetches of one of its files are 200 × 200, and the studio still loads', async () => {
    const asset = readdirSync(`${STUDIO_DIST}/assets`).find((name) => name.endsWith('.js'));
    expect(asset).toBeDefined();
    const from = ownAddress();
    const answers = await burst(200, () =>
      fetch(`${api.url}/studio/assets/${asset}`, { headers: { 'x-forwarded-for': from } }).then(async (r) => (await r.arrayBuffer(), r.status)),
    );
    expect(tally(answers)).toEqual({ 200: 200 });
    const index = await api.request('GET', '/studio/', { headers: { 'x-forwarded-for': from } });
    expect(index.status).toBe(200);
    expect(index.text).toContain('<div id="root">');
  });

  it('a signed-in person has a budget of their own: 200 cookie-authenticated admin reads in a minute, no 429', async () => {
    const admin = await createTestAdmin(api, 'rl');
    const person = new SessionClient(api);
    expect((await person.signIn(admin.email, admin.password)).status).toBe(200);
    const statuses = await burst(200, async () => (await person.request('GET', '/v1/admin/journeys')).status, 10);
    expect(tally(statuses)).toEqual({ 200: 200 });
  });
});

describe('budgets of their own', () => {
  let api: TestApi;
  // a Redis of its own: a source's budget is keyed by its id ('stripe'), which the webhook source
  // tests running beside this file spend in the shared Redis
  let redis: ThrowawayRedis;
  beforeAll(async () => {
    redis = throwawayRedis(await freePort());
    await redis.start();
    api = await startTestApi({
      ...contractLimits,
      CACHE_URL: redis.url,
      // the legacy key reads /metrics five times in this file; a forger's ten tries would pass six
      RATE_LIMIT_MAX: '6',
      SESSION_RATE_LIMIT_MAX: '4',
      TRACKING_RATE_LIMIT_MAX: '5',
      WEBHOOK_SOURCE_RATE_LIMIT_MAX: '3',
      STRIPE_WEBHOOK_SECRET: STRIPE,
    });
  });
  afterAll(async () => {
    await api?.close();
    await redis?.kill();
  });

  it('past the tracking ceiling a click still redirects and a pixel still answers, unrecorded and counted in /metrics', async () => {
    const email = await sentEmail(api);
    const from = ownAddress();
    const [clicksBefore, opensBefore] = [await droppedMetric(api, 'click'), await droppedMetric(api, 'open')];
    const clicks = await burst(8, () => api.request('GET', `/v1/t/c/${email.link.id}`, { headers: { 'x-forwarded-for': from } }), 1);
    expect(tally(clicks.map((answer) => answer.status))).toEqual({ 302: 8 });
    expect(clicks.every((answer) => answer.headers.get('location') === email.link.originalUrl)).toBe(true);
    // the ceiling (5) is per address: the first five are recorded, the last three are not
    expect(await clickCount(api, email.link.id)).toBe(5);
    expect(await droppedMetric(api, 'click')).toBe(clicksBefore + 3);

    const other = await sentEmail(api);
    const pixel = await api.request('GET', `/v1/t/o/${other.id}`, { headers: { 'x-forwarded-for': from } });
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    const send = await api.deps.db.selectFrom('emailSends').select('openedAt').where('id', '=', other.id).executeTakeFirstOrThrow();
    expect(send.openedAt).toBeNull();
    expect(await droppedMetric(api, 'open')).toBe(opensBefore + 1);

    // another address has its own ceiling
    expect((await api.request('GET', `/v1/t/c/${email.link.id}`, { headers: { 'x-forwarded-for': ownAddress() } })).status).toBe(302);
    expect(await clickCount(api, email.link.id)).toBe(6);

    // the invisible link past the ceiling: no destination of its own, so the api's public URL
    const honeypot = () => api.request('GET', `/v1/t/c/${email.id}`, { headers: { 'x-forwarded-for': from } });
    expect((await api.request('GET', `/v1/t/c/${email.id}`, { headers: { 'x-forwarded-for': ownAddress() } })).status).toBe(302);
    expect((await honeypot()).headers.get('location')).toBe(api.deps.config.apiPublicUrl);

    // a person's opt-out is never refused, not even from an address past the ceiling
    const unsubscribe = await oneClickUnsubscribe(api, from, email.to, email.userId);
    expect(unsubscribe.status).toBe(200);
    expect(await checkSendGate(api.deps.db, email.to, 'journey')).toMatchObject({ allowed: false });
    for (const path of ['/v1/email/unsubscribe', '/v1/email/preferences']) {
      const token = await api.deps.email.tokens.sign({ externalId: email.userId, email: email.to, action: 'unsubscribe' });
      expect((await api.request('GET', `${path}?token=${token}`, { headers: { 'x-forwarded-for': from } })).status).toBe(200);
    }
  });

  it('a webhook source has a budget per source id, spent only by verified deliveries', async () => {
    const post = (body: string, headers: Record<string, string>) =>
      api.request('POST', '/v1/webhooks/stripe', { body, headers: { 'content-type': 'application/json', 'x-forwarded-for': ownAddress(), ...headers } });
    const delivery = () => JSON.stringify(stripeSubscriptionTrialWillEnd(Date.now(), `u-${randomUUID()}`));
    // a forger from one address: refused for the signature every time, and spends nothing
    const forger = ownAddress();
    const forged = await burst(10, () => post(delivery(), { ...stripeSignature(delivery(), ['whsec_forged']), 'x-forwarded-for': forger }), 1);
    expect(tally(forged.map((answer) => answer.status))).toEqual({ 401: 10 });
    // the provider, from a new address each time, has its whole budget (3), then a 429 with Retry-After
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const body = delivery();
      const answer = await post(body, stripeSignature(body, [STRIPE]));
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.body).toEqual({ error: 'Rate limit exceeded' });
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a person’s budget is per user, shared by their sessions and by no key or address', async () => {
    const admin = await createTestAdmin(api, 'rl-user');
    const [laptop, phone] = [new SessionClient(api), new SessionClient(api)];
    for (const device of [laptop, phone]) expect((await device.signIn(admin.email, admin.password)).status).toBe(200);
    const statuses: number[] = [];
    for (const device of [laptop, laptop, phone, phone, laptop]) statuses.push((await device.request('GET', '/v1/admin/journeys')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // the same address without the cookie, and a key, still have their own budgets
    expect((await api.request('GET', '/v1/admin/journeys', { headers: { 'x-forwarded-for': laptop.ip } })).status).toBe(401);
    expect((await api.request('GET', '/v1/admin/journeys', { token: LEGACY, headers: { 'x-forwarded-for': laptop.ip } })).status).toBe(200);
  });
});
