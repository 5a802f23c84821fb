import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('rate limit: sliding window per API key, shared through Redis', () => {
  let a: TestApi;
  let b: TestApi;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    const env = { ADMIN_API_KEY: LEGACY, RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' };
    a = await startTestApi(env);
    b = await startTestApi(env);
    // the legacy key has its own budget; use two fresh stored keys so each test starts at zero
    const create = async (name: string) =>
      (await a.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name, scopes: ['read'] } })).body.key as string;
    keyA = await create(`rl-a-${randomUUID()}`);
    keyB = await create(`rl-b-${randomUUID()}`);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After', async () => {
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await a.request('GET', '/v1/admin/audit-logs', { token: keyA });
      expect(response.status).toBe(200);
      remaining.push(response.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await a.request('GET', '/v1/admin/audit-logs', { token: keyA });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Rate limit exceeded' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('shares one window across instances and keeps keys apart', async () => {
    for (let i = 0; i < 3; i++) expect((await a.request('GET', '/v1/admin/audit-logs', { token: keyB })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await b.request('GET', '/v1/admin/audit-logs', { token: keyB })).status).toBe(200);
    expect((await b.request('GET', '/v1/admin/audit-logs', { token: keyB })).status).toBe(429);
  });

  it('limits unauthenticated callers per IP', async () => {
    // behind a trusted proxy the client IP comes from X-Forwarded-For: a made-up address keeps this
    // test's budget apart from other test files calling from 127.0.0.1 at the same time
    const c = await startTestApi({ ADMIN_API_KEY: LEGACY, RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '2000', TRUST_PROXY: 'true' });
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const other = '203.0.113.7';
    try {
      const statuses: number[] = [];
      const call = (from: string) => c.request('GET', '/v1/admin/audit-logs', { headers: { 'x-forwarded-for': from } });
      for (let i = 0; i < 4; i++) statuses.push((await call(ip)).status);
      // the limit applies before authentication, so anonymous floods are cut off too
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect((await call(other)).status).toBe(401);
      // the window slides: once the oldest request is 2 s old, a slot frees up
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect((await call(ip)).status).toBe(401);
    } finally {
      await c.close();
    }
  });

  it('keeps the health probe out of the per-caller limit (it has a budget per address of its own)', async () => {
    const d = await startTestApi({ ADMIN_API_KEY: LEGACY, RATE_LIMIT_MAX: '1' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await d.request('GET', '/v1/health')).status);
      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      await d.close();
    }
  });

  it('falls back to an in-memory window when Redis is unreachable', async () => {
    const offline = await startTestApi({ ADMIN_API_KEY: LEGACY, RATE_LIMIT_MAX: '2', CACHE_URL: 'redis://127.0.0.1:1' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await offline.request('GET', '/v1/admin/audit-logs', { token: LEGACY })).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await offline.close();
    }
  });
});
