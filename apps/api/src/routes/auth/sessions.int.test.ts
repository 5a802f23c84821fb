import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@waymark/core/tokens/tokens';
import { createTestAdmin, resetTokenFor, SessionClient } from '../../../../../test/auth-client';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const DAY = 24 * 60 * 60 * 1000;

describe('/api/auth sign-in, get-session, sign-out', () => {
  let api: TestApi;
  // the api's session clock: tests move it forward to cross the daily refresh and the 7-day expiry
  let offsetMs = 0;
  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' }, { now: () => Date.now() + offsetMs });
  });
  afterAll(() => api.close());

  it('signs in with a cookie, reads the session, signs out', async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    const signedIn = await browser.signIn(admin.email.toUpperCase(), admin.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({
      user: { id: admin.id, email: admin.email, name: null, role: 'admin' },
      session: { id: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const setCookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('waymark_session='));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Secure/i);

    const session = await browser.request('GET', '/api/auth/get-session');
    expect(session).toMatchObject({ status: 200, body: { user: { id: admin.id }, session: { id: signedIn.body.session.id } } });

    const out = await browser.request('POST', '/api/auth/sign-out');
    expect(out).toMatchObject({ status: 200, body: { ok: true } });
    expect(browser.cookie).toBeUndefined();
    expect((await api.request('GET', '/api/auth/get-session')).status).toBe(401);
    const audit = await api.deps.db.selectFrom('auditLogs').selectAll().where('actorUserId', '=', admin.id).orderBy('createdAt').execute();
    expect(audit.map((row) => [row.action, row.actorType, row.actor])).toEqual([
      ['sign-in', 'user', admin.email],
      ['sign-out', 'user', admin.email],
    ]);
  });

  it('answers a wrong password and an unknown email alike, and audits the failure', async () => {
    const admin = await createTestAdmin(api);
    const wrong = await new SessionClient(api).signIn(admin.email, 'not-the-password');
    const unknown = await new SessionClient(api).signIn(`nobody-${admin.id}@waymark-test.example`, 'not-the-password');
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid email or password', code: 'INVALID_EMAIL_OR_PASSWORD' });
    }
    const failed = await api.deps.db.selectFrom('auditLogs').selectAll().where('action', '=', 'sign-in-failed').where('actor', '=', admin.email).execute();
    expect(failed).toHaveLength(1);
  });

  it('refuses passwords outside 8–128 characters with a 400', async () => {
    const browser = new SessionClient(api);
    expect((await browser.signIn('a@example.com', 'short')).status).toBe(400);
    expect((await browser.signIn('a@example.com', 'x'.repeat(129))).status).toBe(400);
  });

  it('closes public sign-up with its code', async () => {
    const response = await api.request('POST', '/api/auth/sign-up/email', { body: { email: 'a@b.co', password: 'long enough password' } });
    expect(response).toMatchObject({
      status: 400,
      body: { error: 'Email and password sign up is not enabled', code: 'EMAIL_PASSWORD_SIGN_UP_DISABLED' },
    });
  });

  it('limits sign-in to 10 attempts per 60 seconds per client', async () => {
    const admin = await createTestAdmin(api);
    const attacker = new SessionClient(api);
    // ten attempts on accounts of their own, so the account's own failure count stays clear
    for (let attempt = 1; attempt <= 10; attempt++) expect((await attacker.signIn(`nobody-${attempt}@example.com`, 'wrong password')).status).toBe(401);
    const limited = await attacker.signIn(admin.email, admin.password);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Rate limit exceeded' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client is not affected
    expect((await new SessionClient(api).signIn(admin.email, admin.password)).status).toBe(200);
  });

  it("closes an account's sign-in for 15 minutes after 10 failed ones from any addresses; a new password opens it", async () => {
    const admin = await createTestAdmin(api);
    // guesses spread over ten addresses, each well under its own limit
    for (let attempt = 1; attempt <= 10; attempt++) expect((await new SessionClient(api).signIn(admin.email, `wrong password ${attempt}`)).status).toBe(401);
    const closed = await new SessionClient(api).signIn(admin.email.toUpperCase(), admin.password);
    expect(closed).toMatchObject({
      status: 429,
      body: { error: 'Too many failed sign-ins for this account; try again in 15 minutes, or reset the password' },
    });
    const retryAfter = Number(closed.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // an unknown account is counted alike: the answer says nothing of which accounts exist
    const unknown = `nobody-${Date.now()}@example.com`;
    for (let attempt = 1; attempt <= 10; attempt++) expect((await new SessionClient(api).signIn(unknown, 'wrong password')).status).toBe(401);
    expect((await new SessionClient(api).signIn(unknown, 'wrong password')).status).toBe(429);

    // the reset link reopens it: the person proved the mailbox
    const requested = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    expect(requested.status).toBe(200);
    const token = await resetTokenFor(admin.email);
    expect((await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'a fresh password after the lock' } })).status).toBe(200);
    expect((await new SessionClient(api).signIn(admin.email, 'a fresh password after the lock')).status).toBe(200);
  });

  it('refreshes a session older than a day and drops it after 7 days', async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    const signedIn = await browser.signIn(admin.email, admin.password);
    const firstExpiry = Date.parse(signedIn.body.session.expiresAt);
    try {
      offsetMs = 12 * 60 * 60 * 1000;
      const early = await browser.request('GET', '/api/auth/get-session');
      expect(Date.parse(early.body.session.expiresAt)).toBe(firstExpiry);
      expect(early.headers.getSetCookie()).toEqual([]);

      offsetMs = DAY + 60_000;
      const refreshed = await browser.request('GET', '/api/auth/get-session');
      expect(refreshed.status).toBe(200);
      const secondExpiry = Date.parse(refreshed.body.session.expiresAt);
      expect(secondExpiry - firstExpiry).toBeGreaterThanOrEqual(DAY);
      expect(refreshed.headers.getSetCookie().some((line) => line.startsWith('waymark_session='))).toBe(true);

      // 7 days after the refresh (not after the sign-in) it ends, and the cookie is cleared
      offsetMs = DAY + 60_000 + 7 * DAY - 120_000;
      expect((await browser.request('GET', '/api/auth/get-session')).status).toBe(200);
      offsetMs += 7 * DAY;
      const gone = await browser.request('GET', '/api/auth/get-session');
      expect(gone).toMatchObject({ status: 401, body: { error: 'Not signed in' } });
      expect(browser.cookie).toBeUndefined();
    } finally {
      offsetMs = 0;
    }
  });

  it('keeps sessions in Redis: they survive a restart and Redis holds no raw token or password', async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    await browser.signIn(admin.email, admin.password);
    const token = browser.cookie ?? '';
    const restarted = await startTestApi({ TRUST_PROXY: 'true' });
    try {
      const response = await restarted.request('GET', '/api/auth/get-session', { headers: { cookie: `waymark_session=${token}` } });
      expect(response).toMatchObject({ status: 200, body: { user: { id: admin.id } } });
    } finally {
      await restarted.close();
    }
    const keys = [...(await api.deps.redis.keys('waymark:session:*')), ...(await api.deps.redis.keys('waymark:user-sessions:*'))];
    expect(keys).toContain(`waymark:session:${hashToken(token)}`);
    const dump = JSON.stringify(
      await Promise.all(
        keys.map(async (key) => [key, (await api.deps.redis.type(key)) === 'set' ? await api.deps.redis.smembers(key) : await api.deps.redis.get(key)]),
      ),
    );
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(admin.password);
  });

  it('in production: the cookie is Secure, and /v1/admin/* counts the person’s own rate limit per user, not per address', async () => {
    // a person's budget (SESSION_RATE_LIMIT_MAX) is not a key's (RATE_LIMIT_MAX)
    const production = await startTestApi({ TRUST_PROXY: 'true', NODE_ENV: 'production', RATE_LIMIT_MAX: '2', SESSION_RATE_LIMIT_MAX: '5' });
    try {
      const admin = await createTestAdmin(production);
      const first = new SessionClient(production);
      const signedIn = await first.signIn(admin.email, admin.password);
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.getSetCookie().find((line) => line.startsWith('waymark_session='))).toMatch(/; Secure/i);

      for (let call = 1; call <= 5; call++) expect((await first.request('GET', '/v1/admin/journeys')).status).toBe(200);
      const limited = await first.request('GET', '/v1/admin/journeys');
      expect(limited).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded' } });
      expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
      // another person from the same address has their own window
      const colleague = await createTestAdmin(production);
      const second = new SessionClient(production);
      await second.signIn(colleague.email, colleague.password);
      expect((await second.request('GET', '/v1/admin/journeys', { headers: { 'x-forwarded-for': first.ip } })).status).toBe(200);
    } finally {
      await production.close();
    }
  });

  it('rejects a cookie-authenticated state change from another origin (403), not a GET', async () => {
    const admin = await createTestAdmin(api);
    const browser = new SessionClient(api);
    await browser.signIn(admin.email, admin.password);
    for (const origin of ['https://evil.example', null]) {
      const response = await browser.request('POST', '/api/auth/change-password', {
        origin,
        body: { currentPassword: admin.password, newPassword: 'another long password' },
      });
      expect(response).toMatchObject({ status: 403, body: { error: 'Invalid origin' } });
    }
    const referer = await browser.request('POST', '/api/auth/sign-out', { origin: null, headers: { referer: 'https://evil.example/page' } });
    expect(referer.status).toBe(403);
    expect((await browser.request('GET', '/api/auth/get-session')).status).toBe(200);
    // a cross-site sign-in form is refused too (login CSRF)
    expect(
      (
        await new SessionClient(api).request('POST', '/api/auth/sign-in/email', {
          origin: 'https://evil.example',
          body: { email: admin.email, password: admin.password },
        })
      ).status,
    ).toBe(403);
  });

  it('documents every /api/auth route in OpenAPI with its request and response schemas', async () => {
    const spec = await api.request('GET', '/openapi.json');
    const paths = spec.body.paths as Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    const routes: [string, string, boolean][] = [
      ['post', '/api/auth/sign-in/email', true],
      ['post', '/api/auth/sign-up/email', false],
      ['get', '/api/auth/get-session', false],
      ['post', '/api/auth/sign-out', false],
      ['post', '/api/auth/request-password-reset', true],
      ['post', '/api/auth/reset-password', true],
      ['post', '/api/auth/change-password', true],
      ['get', '/api/auth/organization/list', false],
      ['post', '/api/auth/organization/create', true],
      ['get', '/api/auth/organization/{orgId}/members', false],
      ['patch', '/api/auth/organization/{orgId}/members/{userId}', true],
      ['delete', '/api/auth/organization/{orgId}/members/{userId}', false],
      ['post', '/api/auth/organization/{orgId}/invite', true],
      ['post', '/api/auth/accept-invitation', true],
    ];
    for (const [method, path, hasBody] of routes) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      if (hasBody) expect(operation?.requestBody, `${method} ${path} body`).toBeDefined();
      expect(Object.keys(operation?.responses ?? {}).length, `${method} ${path} responses`).toBeGreaterThan(0);
    }
    expect(spec.body.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'waymark_session' });
  });
});
