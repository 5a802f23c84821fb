import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, resetTokenFor, SessionClient } from '../../../../../test/auth-client';
import { emailsTo } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const MINUTE = 60_000;

describe('/api/auth password reset and change', () => {
  let api: TestApi;
  let offsetMs = 0;
  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' }, { now: () => Date.now() + offsetMs });
  });
  afterAll(() => api.close());

  it('emails a single-use link through SES; the reset revokes every session', async () => {
    const admin = await createTestAdmin(api, 'reset');
    const laptop = new SessionClient(api);
    const phone = new SessionClient(api);
    await laptop.signIn(admin.email, admin.password);
    await phone.signIn(admin.email, admin.password);

    const requested = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email.toUpperCase() } });
    expect(requested).toMatchObject({ status: 200, body: { ok: true } });
    const token = await resetTokenFor(admin.email);
    const [email] = await emailsTo(admin.email);
    expect(email?.subject).toBe('Reset your Waymark password');
    // the link goes straight to the studio (no click-tracking redirect holding the token)
    expect(email?.body.html).toContain(`${api.config.apiPublicUrl}/studio/reset-password?token=${token}`);
    expect(JSON.stringify(await api.deps.redis.keys('waymark:password-reset:*'))).not.toContain(token);

    const reset = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'a brand new password' } });
    expect(reset).toMatchObject({ status: 200, body: { ok: true } });
    for (const client of [laptop, phone]) expect((await client.request('GET', '/api/auth/get-session')).status).toBe(401);
    expect((await new SessionClient(api).signIn(admin.email, admin.password)).status).toBe(401);
    expect((await new SessionClient(api).signIn(admin.email, 'a brand new password')).status).toBe(200);

    const again = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'yet another password' } });
    expect(again).toMatchObject({ status: 400, body: { error: 'Invalid or expired token', code: 'INVALID_TOKEN' } });
    const audit = await api.deps.db
      .selectFrom('auditLogs')
      .select(['action', 'actorType'])
      .where('actorUserId', '=', admin.id)
      .where('resource', '=', 'user')
      .orderBy('createdAt')
      .execute();
    expect(audit.filter((row) => row.action.includes('password'))).toEqual([
      { action: 'request-password-reset', actorType: 'user' },
      { action: 'reset-password', actorType: 'user' },
    ]);
  });

  it('a token expires after 15 minutes', async () => {
    const admin = await createTestAdmin(api, 'expiry');
    await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    const token = await resetTokenFor(admin.email);
    try {
      offsetMs = 15 * MINUTE + 1_000;
      const late = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'a brand new password' } });
      expect(late).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });
    } finally {
      offsetMs = 0;
    }
    // a fresh token within its 15 minutes works
    await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    const fresh = await resetTokenFor(admin.email, 1);
    offsetMs = 14 * MINUTE;
    try {
      expect((await api.request('POST', '/api/auth/reset-password', { body: { token: fresh, newPassword: 'a brand new password' } })).status).toBe(200);
    } finally {
      offsetMs = 0;
    }
  });

  it('answers 200 for an unknown email and sends nothing; a bad new password is a 400', async () => {
    const unknown = `nobody-${Date.now()}@waymark-test.example`;
    const response = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: unknown } });
    expect(response).toMatchObject({ status: 200, body: { ok: true } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await emailsTo(unknown)).toEqual([]);
    expect((await api.request('POST', '/api/auth/reset-password', { body: { token: 'whatever', newPassword: 'short' } })).status).toBe(400);
    expect(await api.request('POST', '/api/auth/reset-password', { body: { token: 'unknown-token', newPassword: 'long enough password' } })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_TOKEN' },
    });
  });

  it('limits reset requests to 5 per 60 seconds per client', async () => {
    const client = new SessionClient(api);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await client.request('POST', '/api/auth/request-password-reset', { body: { email: `x${attempt}@waymark-test.example` } })).status).toBe(200);
    }
    const limited = await client.request('POST', '/api/auth/request-password-reset', { body: { email: 'x6@waymark-test.example' } });
    expect(limited).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded' } });
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('changes the password while signed in and revokes the other sessions only', async () => {
    const admin = await createTestAdmin(api, 'change');
    const here = new SessionClient(api);
    const elsewhere = new SessionClient(api);
    await here.signIn(admin.email, admin.password);
    await elsewhere.signIn(admin.email, admin.password);
    const wrong = await here.request('POST', '/api/auth/change-password', { body: { currentPassword: 'not it at all', newPassword: 'changed password 1' } });
    expect(wrong.status).toBe(400);
    expect(
      (await api.request('POST', '/api/auth/change-password', { body: { currentPassword: admin.password, newPassword: 'changed password 1' } })).status,
    ).toBe(401);
    const changed = await here.request('POST', '/api/auth/change-password', { body: { currentPassword: admin.password, newPassword: 'changed password 1' } });
    expect(changed).toMatchObject({ status: 200, body: { ok: true } });
    expect((await here.request('GET', '/api/auth/get-session')).status).toBe(200);
    expect((await elsewhere.request('GET', '/api/auth/get-session')).status).toBe(401);
    expect((await new SessionClient(api).signIn(admin.email, 'changed password 1')).status).toBe(200);
    const audit = await api.deps.db
      .selectFrom('auditLogs')
      .select('action')
      .where('actorUserId', '=', admin.id)
      .where('action', '=', 'change-password')
      .execute();
    expect(audit).toHaveLength(1);
  });
});
