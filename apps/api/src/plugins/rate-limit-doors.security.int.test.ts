import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** An address of this test's own (behind the trusted proxy), so no other test file's calls share its window. */
const ownAddress = () => `2001:db8:${randomUUID().slice(0, 4)}::${randomUUID().slice(0, 4)}`;

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

/** docs/operations.md, Rate limits: every door a stranger can knock on is budgeted per address. */
describe('security: unauthenticated doors have budgets', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      ADMIN_API_KEY: LEGACY,
      RATE_LIMIT_MAX: '100',
      RATE_LIMIT_WINDOW_MS: '60000',
      TRUST_PROXY: 'true',
      HEALTH_RATE_LIMIT_MAX: '3',
      WEBHOOK_ADDRESS_RATE_LIMIT_MAX: '3',
      STRIPE_WEBHOOK_SECRET: `whsec_${randomUUID()}`,
    });
  });
  afterAll(() => api?.close());

  it('300 requests with 300 invented bearer tokens from one address meet a 429: they share its anonymous budget', async () => {
    const from = ownAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      const answer = await api.request('GET', '/v1/admin/audit-logs', { token: `wm_${randomUUID()}`, headers: { 'x-forwarded-for': from } });
      statuses.push(answer.status);
    }
    expect(tally(statuses)).toEqual({ 401: 100, 429: 200 });
    // one invented token used again is remembered as unknown and counted the same way
    const again = await api.request('GET', '/v1/admin/audit-logs', { token: 'wm_invented', headers: { 'x-forwarded-for': from } });
    expect(again.status).toBe(429);
  });

  it('a real key keeps its own budget, also from an address that spent its anonymous one', async () => {
    const key = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `doors-${randomUUID()}`, scopes: ['read'] } })).body
      .key as string;
    const from = ownAddress();
    const first = await api.request('GET', '/v1/admin/audit-logs', { token: key, headers: { 'x-forwarded-for': from } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    for (let i = 0; i < 120; i++) await api.request('GET', '/v1/admin/audit-logs', { token: `wm_${randomUUID()}`, headers: { 'x-forwarded-for': from } });
    const after = await api.request('GET', '/v1/admin/audit-logs', { token: key, headers: { 'x-forwarded-for': from } });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('98');
  });

  it('/v1/health has a budget per address, with Retry-After', async () => {
    const from = ownAddress();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await api.request('GET', '/v1/health', { headers: { 'x-forwarded-for': from } }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers[3]!.body).toEqual({ error: 'Rate limit exceeded' });
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // another address has its own
    expect((await api.request('GET', '/v1/health', { headers: { 'x-forwarded-for': ownAddress() } })).status).toBe(200);
  });

  it('a webhook source has a ceiling per address before verification', async () => {
    const from = ownAddress();
    const post = (sourceId: string, address: string) =>
      api.request('POST', `/v1/webhooks/${sourceId}`, {
        body: JSON.stringify({ forged: true }),
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00', 'x-forwarded-for': address },
      });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post('stripe', from));
    // an unknown source id is no way around it
    answers.push(await post(`nope-${randomUUID().slice(0, 8)}`, from));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post('stripe', ownAddress())).status).toBe(401);
  });
});
